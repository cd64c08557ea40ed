#include <stdio.h>
int a(void);
int b(void);
int main(void) { printf("%d\n", a() + b()); }
