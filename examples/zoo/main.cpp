#include "zoo.h"
#include <cstdio>
#include <cstring>

// Not an Animal, though it has a vtable: what a type confusion bug hands to
// code that expects one.
struct Keeper {
  virtual const char *name() const { return "keeper"; }
  virtual ~Keeper() = default;
};

int main(int Argc, char **Argv) {
  Animal *Zoo[] = {makeAnimal(0), makeAnimal(1)};
  std::printf("fed %d animals\n", feedAll(Zoo, 2));
  for (Animal *A : Zoo)
    delete A;
  if (Argc > 1 && std::strcmp(Argv[1], "--confused") == 0) {
    void *NotAnAnimal = new Keeper;
    Animal *A = static_cast<Animal *>(NotAnAnimal); // CFI traps here
    std::printf("%s says %s\n", A->name(), A->sound());
  }
}
