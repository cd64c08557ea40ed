int ok(void) { return 1; }
