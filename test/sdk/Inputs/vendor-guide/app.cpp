#include <cstdio>
#include <cstring>
#include "sdk/sdk.h"
#include "sdk/shapes.h"
namespace {
// A consumer class derived from an SDK class: the SDK calls its visit().
class Printer final : public sdk::Visitor {
public:
  int visits = 0;
  void visit(const sdk::Shape &shape) override {
    std::printf("visit %s %.2f\n", shape.name(), shape.area());
    ++visits;
  }
};
// Not a Shape, but laid out like one.
struct Impostor {
  virtual ~Impostor() {}
  virtual const char *name() const { return "impostor"; }
  virtual double area() const { return -1; }
};
} // namespace
int main(int argc, char **argv) {
  std::printf("%s\n", sdk::greeter().greeting());
  sdk::Scene scene;
  scene.add(sdk::makeShape("circle", 1));
  scene.add(sdk::makeShape("square", 2));
  Printer printer;
  scene.accept(printer);
  std::printf("total %.2f, %d visits, clamp %d\n", scene.totalArea(), printer.visits, sdk::clampTo(42, 0, 10));
  sdk_shape *c = sdk_shape_new("square", 3);
  std::printf("c api v%d: %s %.2f\n", sdk_version(), sdk_shape_name(c), sdk_shape_area(c));
  sdk_shape_free(c);
  if (argc > 1 && !std::strcmp(argv[1], "bad")) {
    sdk::Shape *bad = reinterpret_cast<sdk::Shape *>(new Impostor);
    std::printf("bad cast: %s\n", bad->name());
  }
  return 0;
}
