// Render passes for a Vulkan 1.0 app (--app --vulkan-1.0): dynamic rendering is 1.3 (or an
// extension that needs VK_KHR_get_physical_device_properties2), so the 1.0 harness draws
// into the same attachments through two compatible render passes, one clearing and one
// loading them, and one framebuffer. The attachments keep their layouts for the whole run.
#include "workloads.hpp"

static VkRenderPass makeRenderPass(Gpu &gpu, VkFormat colorFormat, VkFormat depthFormat, VkAttachmentLoadOp load) {
  VkAttachmentDescription attachments[2] = {};
  attachments[0].format = colorFormat;
  attachments[0].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[0].loadOp = load;
  attachments[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = attachments[0].finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  attachments[1] = attachments[0];
  attachments[1].format = depthFormat;
  attachments[1].initialLayout = attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  VkAttachmentReference color{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  subpass.pDepthStencilAttachment = &depth;
  VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  ci.attachmentCount = 2;
  ci.pAttachments = attachments;
  ci.subpassCount = 1;
  ci.pSubpasses = &subpass;
  VkRenderPass pass = VK_NULL_HANDLE;
  check(vkCreateRenderPass(gpu.device, &ci, nullptr, &pass), "vkCreateRenderPass");
  return pass;
}

void createRenderPasses10(Context &ctx) {
  ctx.renderPassClear = makeRenderPass(ctx.gpu, ctx.color.format, ctx.depth.format, VK_ATTACHMENT_LOAD_OP_CLEAR);
  ctx.renderPassLoad = makeRenderPass(ctx.gpu, ctx.color.format, ctx.depth.format, VK_ATTACHMENT_LOAD_OP_LOAD);
  VkImageView views[2] = {ctx.color.view, ctx.depth.view};
  VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fi.renderPass = ctx.renderPassLoad;
  fi.attachmentCount = 2;
  fi.pAttachments = views;
  fi.width = ctx.width;
  fi.height = ctx.height;
  fi.layers = 1;
  check(vkCreateFramebuffer(ctx.gpu.device, &fi, nullptr, &ctx.framebuffer), "vkCreateFramebuffer");
}

void destroyRenderPasses10(Context &ctx) {
  vkDestroyFramebuffer(ctx.gpu.device, ctx.framebuffer, nullptr);
  vkDestroyRenderPass(ctx.gpu.device, ctx.renderPassClear, nullptr);
  vkDestroyRenderPass(ctx.gpu.device, ctx.renderPassLoad, nullptr);
}

void beginRenderPass10(Context &ctx, VkCommandBuffer cmd, bool clear, const VkClearValue clearValues[2]) {
  VkRenderPassBeginInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  info.renderPass = clear ? ctx.renderPassClear : ctx.renderPassLoad;
  info.framebuffer = ctx.framebuffer;
  info.renderArea = {{0, 0}, {ctx.width, ctx.height}};
  info.clearValueCount = clear ? 2 : 0;
  info.pClearValues = clearValues;
  vkCmdBeginRenderPass(cmd, &info, VK_SUBPASS_CONTENTS_INLINE);
}
