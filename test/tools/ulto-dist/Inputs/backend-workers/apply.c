int apply(int (*f)(int), int x) { return f(x); }
