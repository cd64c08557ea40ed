#include <stdio.h>
int twice(int x);
int thrice(int x);
int main(int argc, char **argv) {
  printf("twice %d, thrice %d\n", twice(argc + 20), thrice(argc + 20));
  return 0;
}
