/* The SDK's C API. */
#ifndef SDK_H
#define SDK_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct sdk_shape sdk_shape;
int sdk_version(void);
sdk_shape *sdk_shape_new(const char *kind, double size);
const char *sdk_shape_name(const sdk_shape *shape);
double sdk_shape_area(const sdk_shape *shape);
void sdk_shape_free(sdk_shape *shape);
#ifdef __cplusplus
}
#endif
#endif
