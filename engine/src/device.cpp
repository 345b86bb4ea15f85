#include "llmsizer/device.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

constexpr std::array<std::pair<const char*, Backend>, 9> kBackends = {{
    {"cuda", Backend::cuda}, {"rocm", Backend::rocm},     {"metal", Backend::metal},
    {"sycl", Backend::sycl}, {"cann", Backend::cann},     {"vulkan", Backend::vulkan},
    {"musa", Backend::musa}, {"cpu", Backend::cpu},       {"other", Backend::other},
}};

// Runtime context per device. CUDA: Ollama's minimum reservation of 457 MiB per
// GPU; Metal: 512 MiB (reference README, "Facts for runtime memory"). Other
// backends are given the CUDA figure as the closest known value.
std::int64_t runtime_context_bytes(Backend backend) {
  switch (backend) {
    case Backend::metal: return 512 * static_cast<std::int64_t>(kMiB);
    case Backend::cpu: return 0;
    default: return 457 * static_cast<std::int64_t>(kMiB);
  }
}

// A CPU-only machine's model shares its RAM with the operating system and the
// engine's own process. Not a measurement: a stated reserve of 4 GiB (a Linux
// server idles well below it; a desktop with a browser open comes near it).
constexpr std::int64_t kCpuOsReserveBytes = std::int64_t{4} << 30;

}  // namespace

Backend backend_from_name(const std::string& name) {
  for (const auto& [n, b] : kBackends)
    if (name == n) return b;
  return Backend::other;
}

const char* backend_name(Backend backend) {
  for (const auto& [n, b] : kBackends)
    if (b == backend) return n;
  return "other";
}

UsableMemory usable_memory(const Device& device) {
  UsableMemory m;
  if (device.unified_memory && device.backend == Backend::metal) {
    // macOS wired limit: 75% above 36 GB of RAM, two thirds at or below.
    const std::int64_t ram = device.memory_bytes;
    m.capacity_bytes = ram > 36 * static_cast<std::int64_t>(kGiB) ? ram / 4 * 3 : ram / 3 * 2;
    m.basis = "apple-wired-limit";
  } else if (device.kind == DeviceKind::cpu) {
    m.capacity_bytes = device.memory_bytes;
    m.reserved_bytes = std::min(kCpuOsReserveBytes, device.memory_bytes);
    m.usable_bytes = m.capacity_bytes - m.reserved_bytes;
    m.basis = "system-ram-less-os-reserve";
    return m;
  } else if (device.driver_memory_bytes > 0) {
    m.capacity_bytes = device.driver_memory_bytes;
    m.basis = "driver";
  } else {
    m.capacity_bytes = device.memory_bytes;
    m.basis = "marketed";
  }
  m.reserved_bytes = runtime_context_bytes(device.backend);
  m.usable_bytes = m.capacity_bytes > m.reserved_bytes ? m.capacity_bytes - m.reserved_bytes : 0;
  return m;
}

}  // namespace llmsizer
