struct Swimmer { virtual int fins() const = 0; };
namespace { struct Fish : Swimmer { int fins() const override { return 2; } }; }
Swimmer *makeFish() { return new Fish; }
