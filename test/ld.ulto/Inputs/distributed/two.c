int two(int x) { return x * 2; }
