#include <cstdio>
void helper() { std::puts("helped"); }
