// Shader objects (VK_EXT_shader_object): twins made when the app creates its
// shaders, bound in the shadow in place of the app's (shader_objects.cpp).
#pragma once

#include "state.hpp"

namespace wtl {

/** What the shader objects bound on one bind point draw with: for beginDraw, as a pipeline's twin is. */
struct BoundShaders {
  bool any = false;       // some stage has a shader bound
  bool allTwins = false;  // every bound stage's shader has a twin
  /** The padded layout of the bound twin with the most app sets: binds the trace set; sets above `appSetCount` are disturbed. */
  VkPipelineLayout twinLayout = VK_NULL_HANDLE;
  uint32_t appSetCount = 0;
  bool descriptorBuffer = false;  // the twins' set layouts are descriptor-buffer ones
  std::string name;  // "shaders VS 0x… + FS 0x…" (debug names where the app gave them)
  std::string untracedWhy;
};

BoundShaders boundShaders(DeviceState *device, const BindPointState &b);

/** Binds, in the shadow, the twins (or the app's shaders) of every stage the app bound on this bind point. */
void bindShadersInShadow(CommandState *cs, const BindPointState &b, bool twins);

/** Loads VK_EXT_shader_object's functions below the layer (null where the device lacks them). */
void loadShaderObjectFunctions(DeviceState *device, PFN_vkGetDeviceProcAddr gdpa);

/** The layer's vkCreateShadersEXT, vkDestroyShaderEXT or vkCmdBindShadersEXT, or null. */
PFN_vkVoidFunction findShaderObjectHook(const char *name);

}  // namespace wtl
