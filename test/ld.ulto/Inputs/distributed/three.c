int three(int x) { return x + 2; }
