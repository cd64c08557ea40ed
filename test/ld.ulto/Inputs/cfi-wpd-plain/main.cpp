#include <cstdio>
#include "animal.h"
// Same vtable layout as Animal, but not an Animal: calling sound() through
// an Animal pointer works by accident unless CFI checks the call.
struct Unrelated { virtual ~Unrelated() {} virtual const char *sound() const { return "unrelated"; } };
int main(int argc, char **argv) {
  Animal *a = makeAnimal();
  std::printf("%s\n", a->sound());
  if (argc > 1) {
    Animal *bad = reinterpret_cast<Animal *>(new Unrelated);
    std::printf("%s\n", bad->sound());
  }
  delete a;
}
