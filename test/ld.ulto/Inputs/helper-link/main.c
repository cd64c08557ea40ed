int helper(void);
int main(void) { return helper(); }
