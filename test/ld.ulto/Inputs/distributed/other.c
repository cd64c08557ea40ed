#include <stdio.h>
int three(int);
int main(void) { printf("%d\n", three(40)); return 0; }
