#include <stdio.h>
void helper(void) { puts("helped"); }
