#include <stdio.h>
int two(int);
int main(void) { printf("%d\n", two(21)); }
