int five(int x) { return 5 * x; }
