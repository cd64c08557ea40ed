struct Animal {
  virtual ~Animal();
  virtual const char *name() const = 0;
  virtual const char *sound() const = 0;
};
Animal *makeAnimal(int kind);
