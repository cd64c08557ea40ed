struct Animal { virtual ~Animal(); virtual const char *sound() const = 0; };
Animal::~Animal() = default;
namespace { struct Dog : Animal { const char *sound() const override { return "woof"; } }; }
Animal *makeAnimal() { return new Dog; }
