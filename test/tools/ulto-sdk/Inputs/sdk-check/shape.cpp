struct Shape { virtual ~Shape(); virtual int area() const = 0; };
Shape::~Shape() = default;
struct Square : Shape { int s; Square(int s) : s(s) {} int area() const override { return s * s; } };
Shape *makeSquare(int s) { return new Square(s); }
int totalArea(Shape **shapes, int n) { int t = 0; for (int i = 0; i < n; ++i) t += shapes[i]->area(); return t; }
