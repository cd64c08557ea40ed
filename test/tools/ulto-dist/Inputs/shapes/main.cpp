#include "shape.h"
#include <cstdio>
int main() {
  Shape *Shapes[] = {makeCircle(), makeSquare()};
  for (Shape *S : Shapes)
    std::printf("%s %g\n", S->name(), S->area());
  std::printf("total %g\n", total(Shapes, 2));
}
