#include <string.h>
int lib_len(const char *s) { return (int)strlen(s) + 1; }
