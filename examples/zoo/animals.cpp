#include "zoo.h"

Animal::~Animal() = default;

namespace {
struct Dog : Animal {
  const char *name() const override { return "dog"; }
  const char *sound() const override { return "woof"; }
};
struct Cat : Animal {
  const char *name() const override { return "cat"; }
  const char *sound() const override { return "meow"; }
};
} // namespace

Animal *makeAnimal(int Kind) {
  if (Kind == 0)
    return new Dog;
  return new Cat;
}
