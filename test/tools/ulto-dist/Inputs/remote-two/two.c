int two(int x) { return 2 * x; }
