#include <cstdio>
namespace {
struct Poly { virtual ~Poly() = default; virtual int sides() const { return 0; } };
struct Triangle : Poly { int sides() const override { return 3; } };
inline int registered = [] {
  Triangle t;
  const Poly &p = t;
  std::printf("sides %d\n", p.sides());
  return 1;
}();
static int helper() { return registered; }
} // namespace
static int unused = helper();
