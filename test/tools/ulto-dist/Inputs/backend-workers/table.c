int tripled(int x) { return 3 * x; }
int half(int x) { return x / 2; }
