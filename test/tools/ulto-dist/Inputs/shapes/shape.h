struct Shape {
  virtual ~Shape() = default;
  virtual const char *name() const = 0;
  virtual double area() const = 0;
};
Shape *makeCircle();
Shape *makeSquare();
double total(Shape **Shapes, int N);
