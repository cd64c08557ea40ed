#include "sdk/sdk.h"
#include "sdk/shapes.h"
struct sdk_shape { sdk::Shape *shape; };
extern "C" {
int sdk_version(void) { return 3; }
sdk_shape *sdk_shape_new(const char *kind, double size) {
  sdk::Shape *s = sdk::makeShape(kind, size);
  return s ? new sdk_shape{s} : nullptr;
}
const char *sdk_shape_name(const sdk_shape *shape) { return shape->shape->name(); }
double sdk_shape_area(const sdk_shape *shape) { return shape->shape->area(); }
void sdk_shape_free(sdk_shape *shape) { delete shape->shape; delete shape; }
}
