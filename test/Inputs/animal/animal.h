struct Animal { virtual ~Animal(); virtual const char *sound() const = 0; };
Animal *makeAnimal();
