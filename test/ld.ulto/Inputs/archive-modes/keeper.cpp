#include <cstdio>
#include "zoo.h"
template <typename T> static int each(T **xs, int n, void (*f)(T *)) { for (int i = 0; i < n; ++i) f(xs[i]); return n; }
int feed(Animal **animals, int n) {
  return each<Animal>(animals, n, [](Animal *a) { std::printf("%s says %s\n", a->name(), a->sound()); });
}
