#include <stdio.h>
int twice(int);
int main(void) { printf("twice %d\n", twice(21)); return 0; }
