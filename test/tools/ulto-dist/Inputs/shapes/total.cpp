#include "shape.h"
double total(Shape **Shapes, int N) {
  double Sum = 0;
  for (int I = 0; I != N; ++I)
    Sum += Shapes[I]->area();
  return Sum;
}
