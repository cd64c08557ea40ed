#include <cstdio>
#include <vector>
#ifndef SCALE
#define SCALE 2
#endif
struct Base { virtual ~Base() = default; virtual int get() const = 0; };
struct Impl : Base { int v; explicit Impl(int v) : v(v) {} int get() const override { return v * SCALE; } };
template <typename T> T sum(const std::vector<T> &xs) { T s{}; for (auto x : xs) s += x; return s; }
int main() {
  std::vector<int> xs;
  for (int i = 0; i < 10; ++i) { Impl im(i); const Base &b = im; xs.push_back(b.get()); }
  std::printf("%d\n", sum(xs));
}
