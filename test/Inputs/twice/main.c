int twice(int);
int main(void) { return twice(21) - 42; }
