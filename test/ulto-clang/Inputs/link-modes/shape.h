struct Shape { virtual ~Shape() = default; virtual int area() const = 0; };
Shape *makeRect(int w, int h);
