void helper();
int main() { helper(); }
