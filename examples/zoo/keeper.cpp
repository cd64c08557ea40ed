#include "zoo.h"
#include <cstdio>

int feedAll(Animal **Animals, int N) {
  for (int I = 0; I < N; ++I)
    std::printf("%s says %s\n", Animals[I]->name(), Animals[I]->sound());
  return N;
}
