int quad(int x) { return 4 * x; }
