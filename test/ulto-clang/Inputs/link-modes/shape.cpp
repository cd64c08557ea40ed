#include "shape.h"
namespace { struct Rect : Shape { int w, h; Rect(int w, int h) : w(w), h(h) {} int area() const override { return w * h; } }; }
Shape *makeRect(int w, int h) { return new Rect(w, h); }
