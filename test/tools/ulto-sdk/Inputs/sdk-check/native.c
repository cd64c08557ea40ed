int native_fn(int x) { return x * 3; }
