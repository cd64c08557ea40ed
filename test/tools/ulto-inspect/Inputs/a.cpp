struct A {
  virtual int f();
};
int A::f() { return 1; }
