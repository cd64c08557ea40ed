#include <stdarg.h>
struct S { int x; };
typedef struct S S_t;
enum E { E0, E1 };
int f(int x) { return x; }
const char *g(const char *s, char **out) { *out = 0; return s; }
void v(void) {}
int h(int n, ...) { va_list ap; va_start(ap, n); int r = va_arg(ap, int); va_end(ap); return r; }
int noproto() { return 1; }
int sp(S_t *s, const struct S *t, enum E e) { return s->x + t->x + e; }
void cb(void (*fn)(int), int a) { fn(a); }
int (*ret_fp(void))(int) { return f; }
__attribute__((weak)) long w(long a) { return a; }
static int st(int a) { return a; }
int use_st(void) { return st(1); }
void unchecked(int) __attribute__((cfi_unchecked_callee));
void unchecked(int a) { (void)a; }
int arr(int a[4], double d, float f2, unsigned char c) { return a[0] + (int)d + (int)f2 + c; }
