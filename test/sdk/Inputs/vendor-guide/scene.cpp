#include "sdk/shapes.h"
namespace sdk {
Visitor::~Visitor() = default;
bool Scene::add(Shape *shape) { return shape && shapes_.add(shape); }
void Scene::accept(Visitor &visitor) const {
  for (int i = 0; i < shapes_.size(); ++i)
    visitor.visit(shapes_[i]);
}
double Scene::totalArea() const {
  double total = 0;
  for (int i = 0; i < shapes_.size(); ++i)
    total += shapes_[i].area();
  return total;
}
template <typename T> T clampTo(T value, T lo, T hi) {
  return value < lo ? lo : hi < value ? hi : value;
}
template int clampTo<int>(int, int, int);
template double clampTo<double>(double, double, double);
} // namespace sdk
