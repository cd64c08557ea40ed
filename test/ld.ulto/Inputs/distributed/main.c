#include <stdio.h>
int two(int);
int three(int);
int main(void) { printf("%d\n", two(20) + three(1)); return 0; }
