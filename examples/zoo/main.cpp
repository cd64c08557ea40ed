#include "zoo.h"
#include <cstdio>

int main() {
  Animal *Zoo[] = {makeAnimal(0), makeAnimal(1)};
  std::printf("fed %d animals\n", feedAll(Zoo, 2));
  for (Animal *A : Zoo)
    delete A;
}
