#include "animal.h"
Animal::~Animal() = default;
namespace { struct Dog : Animal { const char *sound() const override { return "woof"; } }; }
Animal *makeAnimal() { return new Dog; }
