int stale() { return 1; }
