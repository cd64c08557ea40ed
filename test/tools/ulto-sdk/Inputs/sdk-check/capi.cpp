namespace { int bump(int x) { return x + 1; } }
extern "C" int sdk_add(int a, int b) { return bump(a) + b - 1; }
