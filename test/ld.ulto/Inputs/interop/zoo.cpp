#include "zoo.h"
Animal::~Animal() = default;
namespace {
struct Dog : Animal { const char *name() const override { return "dog"; } const char *sound() const override { return "woof"; } };
struct Cat : Animal { const char *name() const override { return "cat"; } const char *sound() const override { return "meow"; } };
}
Animal *makeAnimal(int kind) { if (kind == 0) return new Dog; return new Cat; }
