int g(int);
int main(int argc, char **argv) { return g(argc); }
