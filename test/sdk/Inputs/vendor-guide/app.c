#include <stdio.h>
#include "sdk/sdk.h"
int main(void) {
  sdk_shape *s = sdk_shape_new("circle", 2);
  printf("c consumer v%d: %s %.2f\n", sdk_version(), sdk_shape_name(s), sdk_shape_area(s));
  sdk_shape_free(s);
  return 0;
}
