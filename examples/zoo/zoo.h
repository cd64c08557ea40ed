// A small zoo: a class hierarchy with virtual calls across files.
#pragma once

struct Animal {
  virtual ~Animal();
  virtual const char *name() const = 0;
  virtual const char *sound() const = 0;
};

Animal *makeAnimal(int Kind);
int feedAll(Animal **Animals, int N);
