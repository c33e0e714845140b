// The size of an X window, for an offscreen surface's current extent, asked
// through the library the app already loaded (RTLD_NOLOAD: the layer never loads
// or links X11 itself, and builds without its headers).
#include <dlfcn.h>

#include <cstdlib>

#include "offscreen.hpp"

namespace wtl {

namespace {

struct XcbGeometryCookie {
  unsigned int sequence;
};

/** xcb_get_geometry_reply_t: the X protocol's GetGeometry reply. */
struct XcbGeometryReply {
  uint8_t responseType, depth;
  uint16_t sequence;
  uint32_t length;
  uint32_t root;
  int16_t x, y;
  uint16_t width, height, borderWidth;
  uint8_t pad[2];
};

}  // namespace

bool xcbWindowSize(void *connection, uint32_t window, VkExtent2D &extent) {
  void *lib = dlopen("libxcb.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return false;
  auto request = (XcbGeometryCookie(*)(void *, uint32_t))dlsym(lib, "xcb_get_geometry");
  auto reply = (XcbGeometryReply * (*)(void *, XcbGeometryCookie, void **)) dlsym(lib, "xcb_get_geometry_reply");
  XcbGeometryReply *geometry = request && reply ? reply(connection, request(connection, window), nullptr) : nullptr;
  dlclose(lib);
  if (!geometry) return false;
  extent = {geometry->width, geometry->height};
  free(geometry);
  return extent.width > 0 && extent.height > 0;
}

bool xlibWindowSize(void *display, unsigned long window, VkExtent2D &extent) {
  void *lib = dlopen("libX11.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return false;
  auto get = (int (*)(void *, unsigned long, unsigned long *, int *, int *, unsigned *, unsigned *, unsigned *, unsigned *))dlsym(lib, "XGetGeometry");
  unsigned long root = 0;
  int x = 0, y = 0;
  unsigned width = 0, height = 0, border = 0, depth = 0;
  bool ok = get && get(display, window, &root, &x, &y, &width, &height, &border, &depth) != 0;
  dlclose(lib);
  extent = {width, height};
  return ok && width > 0 && height > 0;
}

}  // namespace wtl
