#include <cstdio>
#include "zoo.h"
int main() {
  for (int kind = 0; kind < 2; ++kind) {
    Animal *a = makeAnimal(kind);
    std::printf("%s says %s\n", a->name(), a->sound());
    delete a;
  }
}
