#include <cstdio>
namespace {
struct Pet { virtual ~Pet() = default; virtual const char *sound() const { return SOUND; } };
}
#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
void CAT(speak_, NAME)() {
  Pet *p = new Pet;
  std::printf("%s says %s\n", STR(NAME), p->sound());
  delete p;
}
