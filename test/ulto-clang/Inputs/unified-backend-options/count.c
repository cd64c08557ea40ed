int main(int argc, char **argv) { (void)argv; int s = 0; for (int i = 0; i < argc * 10; ++i) s += i; return s == 45 ? 0 : 1; }
