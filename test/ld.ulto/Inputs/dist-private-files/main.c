int twice(int), thrice(int);
int main(void) { return twice(21) + thrice(0) - 42; }
