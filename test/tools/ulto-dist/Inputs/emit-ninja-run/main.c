#include <stdio.h>
int twice(int x); int thrice(int x); int quad(int x); int five(int x);
int main(int argc, char **argv) {
  printf("%d %d %d %d\n", twice(argc), thrice(argc), quad(argc), five(argc));
  return 0;
}
