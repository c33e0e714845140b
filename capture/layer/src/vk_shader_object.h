// VK_EXT_shader_object's declarations, for Vulkan headers older than 1.3.246
// (Debian 12 ships 1.3.239): the layer must intercept the extension's commands
// to trace apps that use it, and a newer header is not among the packages the
// build may use. Values and layouts from the Vulkan registry (extension 483);
// a header that already declares the extension wins.
#pragma once

#include <vulkan/vulkan.h>

#ifndef VK_EXT_shader_object
#define VK_EXT_shader_object 1
#define VK_EXT_SHADER_OBJECT_EXTENSION_NAME "VK_EXT_shader_object"
VK_DEFINE_NON_DISPATCHABLE_HANDLE(VkShaderEXT)

#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_OBJECT_FEATURES_EXT ((VkStructureType)1000482000)
#define VK_STRUCTURE_TYPE_SHADER_CREATE_INFO_EXT ((VkStructureType)1000482002)
#define VK_OBJECT_TYPE_SHADER_EXT ((VkObjectType)1000482000)

typedef enum VkShaderCodeTypeEXT {
  VK_SHADER_CODE_TYPE_BINARY_EXT = 0,
  VK_SHADER_CODE_TYPE_SPIRV_EXT = 1,
  VK_SHADER_CODE_TYPE_MAX_ENUM_EXT = 0x7FFFFFFF
} VkShaderCodeTypeEXT;

typedef enum VkShaderCreateFlagBitsEXT {
  VK_SHADER_CREATE_LINK_STAGE_BIT_EXT = 0x00000001,
  VK_SHADER_CREATE_FLAG_BITS_MAX_ENUM_EXT = 0x7FFFFFFF
} VkShaderCreateFlagBitsEXT;
typedef VkFlags VkShaderCreateFlagsEXT;

typedef struct VkShaderCreateInfoEXT {
  VkStructureType sType;
  const void *pNext;
  VkShaderCreateFlagsEXT flags;
  VkShaderStageFlagBits stage;
  VkShaderStageFlags nextStage;
  VkShaderCodeTypeEXT codeType;
  size_t codeSize;
  const void *pCode;
  const char *pName;
  uint32_t setLayoutCount;
  const VkDescriptorSetLayout *pSetLayouts;
  uint32_t pushConstantRangeCount;
  const VkPushConstantRange *pPushConstantRanges;
  const VkSpecializationInfo *pSpecializationInfo;
} VkShaderCreateInfoEXT;

typedef VkResult(VKAPI_PTR *PFN_vkCreateShadersEXT)(VkDevice device, uint32_t createInfoCount, const VkShaderCreateInfoEXT *pCreateInfos,
                                                    const VkAllocationCallbacks *pAllocator, VkShaderEXT *pShaders);
typedef void(VKAPI_PTR *PFN_vkDestroyShaderEXT)(VkDevice device, VkShaderEXT shader, const VkAllocationCallbacks *pAllocator);
typedef void(VKAPI_PTR *PFN_vkCmdBindShadersEXT)(VkCommandBuffer commandBuffer, uint32_t stageCount, const VkShaderStageFlagBits *pStages,
                                                 const VkShaderEXT *pShaders);
#endif
