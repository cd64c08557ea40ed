// The SDK's C++ API.
#pragma once
namespace sdk {

class Shape {
public:
  virtual ~Shape();
  virtual const char *name() const = 0;
  virtual double area() const = 0;
};
// "circle" or "square"; implemented in the SDK (anonymous namespace).
Shape *makeShape(const char *kind, double size);

// One implementation, inside the SDK.
class Greeter {
public:
  virtual ~Greeter();
  virtual const char *greeting() const = 0;
};
const Greeter &greeter();

// Implemented by consumers; the SDK calls visit().
class Visitor {
public:
  virtual ~Visitor();
  virtual void visit(const Shape &shape) = 0;
};

template <typename T, int N> class Bag {
  T *items_[N];
  int size_ = 0;
public:
  Bag() = default;
  Bag(const Bag &) = delete;
  ~Bag() { for (int i = 0; i < size_; ++i) delete items_[i]; }
  bool add(T *item) { if (size_ == N) return false; items_[size_++] = item; return true; }
  int size() const { return size_; }
  T &operator[](int i) const { return *items_[i]; }
};

class Scene {
  Bag<Shape, 8> shapes_;
public:
  bool add(Shape *shape);
  void accept(Visitor &visitor) const;
  double totalArea() const;
};

template <typename T> T clampTo(T value, T lo, T hi);
extern template int clampTo<int>(int, int, int);
extern template double clampTo<double>(double, double, double);

} // namespace sdk
