int thrice(int x) { return 3 * x; }
