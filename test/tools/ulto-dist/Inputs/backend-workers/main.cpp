#include "shape.h"
#include <cstdio>
int main() {
  Shape *S = makeSquare(2);
  Shape *C = makeCircle(5);
  std::printf("area %d circle %d\n", apply(tripled, S->area()), C->area());
  delete S;
  delete C;
}
