int helper(void);
int mainCRTStartup(void) { return helper(); }
