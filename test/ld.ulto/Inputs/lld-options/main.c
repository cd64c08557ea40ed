#include <stdio.h>
int twin_a(int);
int twin_b(int);
int used_function(void);
int main(void) {
  // Compared at run time: the compiler may not assume they differ.
  int (*volatile a)(int) = twin_a;
  int (*volatile b)(int) = twin_b;
  puts(a == b ? "folded" : "distinct");
  return used_function() + a(0) - b(0);
}
