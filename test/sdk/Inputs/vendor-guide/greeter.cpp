#include "sdk/shapes.h"
namespace sdk {
Greeter::~Greeter() = default;
namespace {
class HelloGreeter final : public Greeter {
public:
  const char *greeting() const override { return "hello from the sdk"; }
};
} // namespace
const Greeter &greeter() {
  static HelloGreeter g;
  return g;
}
} // namespace sdk
