int helper(void) { return 7; }
