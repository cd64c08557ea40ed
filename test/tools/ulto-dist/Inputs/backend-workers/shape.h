struct Shape {
  virtual int area() const = 0;
  virtual ~Shape() = default;
};
Shape *makeCircle(int r);
Shape *makeSquare(int s);
extern "C" int apply(int (*f)(int), int x);
extern "C" int tripled(int x);
extern "C" int half(int x);
