#include <stdio.h>
int sum(const int *xs, int n) { int s = 0; for (int i = 0; i < n; ++i) s += xs[i]; return s; }
int main(void) { int xs[100]; for (int i = 0; i < 100; ++i) xs[i] = i; printf("sum %d\n", sum(xs, 100)); }

