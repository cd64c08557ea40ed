struct Shape { virtual ~Shape(); virtual int area() const = 0; };
Shape *makeRect(int w, int h);
