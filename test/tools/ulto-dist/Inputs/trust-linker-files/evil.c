int main(void) { return 66; }
