#include <cstdio>
#include "zoo.h"
int main() {
  Animal *zoo[2] = {makeAnimal(0), makeAnimal(1)};
  std::printf("fed %d animals\n", feed(zoo, 2));
  for (Animal *a : zoo) delete a;
}
