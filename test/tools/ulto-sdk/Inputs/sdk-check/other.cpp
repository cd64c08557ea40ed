struct Base { virtual ~Base(); virtual int f() const; };
Base::~Base() = default;
int Base::f() const { return 1; }
int callF(const Base &b) { return b.f(); }
