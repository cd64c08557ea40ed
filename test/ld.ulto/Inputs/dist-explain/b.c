int a(void);
int b(void) { return a() + 1; }
