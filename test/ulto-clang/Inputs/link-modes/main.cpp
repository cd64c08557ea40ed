#include <cstdio>
#include "shape.h"
int main() { Shape *s = makeRect(3, 4); std::printf("area %d\n", s->area()); delete s; }
