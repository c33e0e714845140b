// The size of an indirect ray-tracing launch (vkCmdTraceRaysIndirectKHR / Indirect2KHR), its draw's
// target: the launch reads {width, height, depth} from a device address at run time, so in the captured
// frame the shadow copies those 12 bytes into a buffer of the layer's before the launch, read after the
// frame. A device address names no buffer: the layer notes the buffers whose addresses the app asks for
// (vkGetBufferDeviceAddress*) and, to be allowed to copy from them, gives buffers made with device
// addresses TRANSFER_SRC as well (a usage bit more changes nothing the app sees but their memory needs,
// which it asks the layer's buffer for). An address in no such buffer leaves the launch without a target.
#include <cstddef>
#include <cstring>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "ray_tracing.hpp"
#include "tracer_glue.hpp"

namespace wtl {

/** Launch sizes one captured frame can read back; later indirect launches get no target. */
static const uint32_t kLaunchSizes = 4096;
static const VkDeviceSize kLaunchSizeBytes = 3 * sizeof(uint32_t);

static VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateBuffer(VkDevice handle, const VkBufferCreateInfo *info, const VkAllocationCallbacks *allocator,
                                                        VkBuffer *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  bool addressed = (info->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
  VkBufferCreateInfo copyable = *info;
  if (addressed && device->traceable) copyable.usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  VkResult r = device->d.CreateBuffer(handle, &copyable, allocator, out);
  if (r == VK_SUCCESS && addressed) {
    std::lock_guard<std::mutex> guard(device->lock);
    device->bufferAddresses[*out] = {info->size, 0};
  }
  return r;
}

static VKAPI_ATTR void VKAPI_CALL wl_vkDestroyBuffer(VkDevice handle, VkBuffer buffer, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  if (buffer) {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->bufferAddresses.find(buffer);
    if (it != device->bufferAddresses.end()) {
      auto at = device->addressedBuffers.find(it->second.address);
      if (at != device->addressedBuffers.end() && at->second.buffer == buffer) device->addressedBuffers.erase(at);
      device->bufferAddresses.erase(it);
    }
  }
  device->d.DestroyBuffer(handle, buffer, allocator);
}

/** vkGetBufferDeviceAddress, and its KHR and EXT names: the address, noted with its buffer. */
static VKAPI_ATTR VkDeviceAddress VKAPI_CALL wl_vkGetBufferDeviceAddress(VkDevice handle, const VkBufferDeviceAddressInfo *info) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkDeviceAddress address = device->getBufferDeviceAddress ? device->getBufferDeviceAddress(handle, info) : 0;
  if (address) {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->bufferAddresses.find(info->buffer);
    if (it != device->bufferAddresses.end()) {
      it->second.address = address;
      device->addressedBuffers[address] = {info->buffer, it->second.size};
    }
  }
  return address;
}

static const char *const kAddressNames[] = {"vkGetBufferDeviceAddress", "vkGetBufferDeviceAddressKHR", "vkGetBufferDeviceAddressEXT"};

void loadBufferAddressFunction(DeviceState *device, PFN_vkGetDeviceProcAddr gdpa) {
  for (const char *name : kAddressNames)
    if (!device->getBufferDeviceAddress) device->getBufferDeviceAddress = (PFN_vkGetBufferDeviceAddress)gdpa(device->device, name);
}

int32_t copyLaunchSize(CommandState *cs, VkDeviceAddress at) {
  DeviceState *device = cs->device;
  VkBuffer source = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->addressedBuffers.upper_bound(at);
    if (it == device->addressedBuffers.begin()) return -1;
    --it;
    if (at + kLaunchSizeBytes > it->first + it->second.size) return -1;
    source = it->second.buffer;
    offset = at - it->first;
    if (device->launchSizeCount >= kLaunchSizes) return -1;
    if (!device->launchSizes.buffer && !makeHostBuffer(device, kLaunchSizes * kLaunchSizeBytes, device->launchSizes)) return -1;
  }
  uint32_t index = device->launchSizeCount++;
  const CommandTable &cmd = device->cmd;
  // The app made the size visible to the launch's indirect read; make it visible to a copy too, and the copy to the host.
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  cmd.CmdPipelineBarrier(cs->shadow, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
  VkBufferCopy region{offset, index * kLaunchSizeBytes, kLaunchSizeBytes};
  cmd.CmdCopyBuffer(cs->shadow, source, device->launchSizes.buffer, 1, &region);
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  cmd.CmdPipelineBarrier(cs->shadow, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0, nullptr);
  return (int32_t)index;
}

bool launchSizeAt(DeviceState *device, int32_t index, VkExtent3D &out) {
  if (index < 0 || (uint32_t)index >= device->launchSizeCount || !device->launchSizes.map || !readHostBuffer(device, device->launchSizes)) return false;
  uint32_t size[3];
  memcpy(size, (const uint8_t *)device->launchSizes.map + index * kLaunchSizeBytes, sizeof size);
  out = {size[0], size[1], size[2]};
  return size[0] > 0 && size[1] > 0 && size[2] > 0;
}

PFN_vkVoidFunction findLaunchSizeHook(const char *name) {
  if (!strcmp(name, "vkCreateBuffer")) return (PFN_vkVoidFunction)wl_vkCreateBuffer;
  if (!strcmp(name, "vkDestroyBuffer")) return (PFN_vkVoidFunction)wl_vkDestroyBuffer;
  for (const char *address : kAddressNames)
    if (!strcmp(name, address)) return (PFN_vkVoidFunction)wl_vkGetBufferDeviceAddress;
  return nullptr;
}

}  // namespace wtl
