namespace ns {
int over(int a) { return a; }
double over(double a) { return a; }
int &ref(int &a) { return a; }
const char *ptr(const char *const *p) { return *p; }
}
extern "C" int c_fn(int a) { return a; }
struct A {
  static int s(int a);
  int m(int a);
  virtual int v();
  int A::*mp;
};
int A::s(int a) { return a; }
int A::m(int a) { return a; }
int A::v() { return 0; }
template <class T> T tmpl(T a) { return a; }
template int tmpl<int>(int);
template A *tmpl<A *>(A *);
int nx(int a) noexcept { return a; }
int mptr(int A::*p, int (A::*q)(int)) { return p != nullptr && q != nullptr; }
inline int inl(int a) { return a + 1; }
int use_inl(int a) { return inl(a); }
namespace { struct Hidden {}; }
int hid(Hidden *) { return 0; }
int lam(int a) { auto l = [](int b) { return b; }; int (*p)(int) = l; return p(a); }
