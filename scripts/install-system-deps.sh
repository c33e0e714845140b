#!/usr/bin/env bash
# System packages the tests need on a fresh Debian machine (run as root):
# Chromium for browser tests, glslang/spirv-tools for shaders, Vulkan headers,
# loader and lavapipe (software Vulkan) for the real capture without a GPU;
# a virtual X server, two real Vulkan apps (vkcube, vkd3d-gears) and the
# Khronos validation layer (traced beside ours) for the capture layer's
# end-to-end test.
set -euo pipefail
packages=(chromium glslang-tools spirv-tools libvulkan-dev mesa-vulkan-drivers vulkan-tools cmake g++ xvfb xauth vkd3d-demos vulkan-validationlayers)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=''; [ "$(id -u)" -eq 0 ] || SUDO='sudo'
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
