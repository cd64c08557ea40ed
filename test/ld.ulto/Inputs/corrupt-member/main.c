void helper(void);
int main(void) { helper(); return 0; }
