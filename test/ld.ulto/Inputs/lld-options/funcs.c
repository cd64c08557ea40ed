int twin_a(int x) { return x * 7 + 3; }
int twin_b(int x) { return x * 7 + 3; }
int used_function(void) { return 0; }
int unused_function(void) { return 42; }
