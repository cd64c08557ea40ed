#include <cstdio>
#include "shape.h"
int main() { Shape *s = makeRect(2, 3); std::printf("area %d\n", s->area()); delete s; }
