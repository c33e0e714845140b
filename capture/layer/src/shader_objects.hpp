// Shader objects (VK_EXT_shader_object): twins made when the app creates its
// shaders, bound in the shadow in place of the app's (shader_objects.cpp).
#pragma once

#include "command_buffers.hpp"

namespace wtl {

/**
 * What the shader objects bound on one bind point draw with: known when some stage has one, a twin when every bound
 * stage's shader has one; the padded layout of the bound twin with the most app sets binds the trace set.
 */
DrawProgram boundShaders(DeviceState *device, const BindPointState &b);

/** Binds, in the shadow, the twins (or the app's shaders) of every stage the app bound on this bind point. */
void bindShadersInShadow(CommandState *cs, const BindPointState &b, bool twins);

/** Loads VK_EXT_shader_object's functions below the layer (null where the device lacks them). */
void loadShaderObjectFunctions(DeviceState *device, PFN_vkGetDeviceProcAddr gdpa);

/** The layer's vkCreateShadersEXT, vkDestroyShaderEXT or vkCmdBindShadersEXT, or null. */
PFN_vkVoidFunction findShaderObjectHook(const char *name);

}  // namespace wtl
