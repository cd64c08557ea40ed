#include <stdio.h>
int twice(int x);
int main(int argc, char **argv) { printf("twice %d\n", twice(argc + 20)); return 0; }
