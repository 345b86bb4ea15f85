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

// A CPU-only machine's model, or a unified-memory machine's, shares its memory
// with the operating system and the engine's own process. Not a measurement:
// a stated reserve of 4 GiB (a Linux server idles well below it; a desktop
// with a browser open comes near it).
constexpr std::int64_t kOsReserveBytes = std::int64_t{4} << 30;

// A small Mac (16 GB or less) keeps for macOS what its own default leaves the
// system on the smallest Mac: there the GPU may wire two thirds of 8 GiB (the
// rule below: 5,726.63 MB), so macOS runs in the other third, 2.67 GiB.
// Checked against the world: macOS idles at 2.33 GB used after a reboot (App
// Memory 1.2 + Wired 1.13 GB on an 8 GB Mac,
// https://macmyths.com/what-is-wired-memory), and a 16 GB M4 ran gpt-oss-20b
// at 32K with 12 layers' experts on the CPU (some 12.3 GiB of buffers) with
// 13.05 of 16 GB in use and no swap (ml-explore/mlx-lm#644), where 4 GiB for
// the system would leave too little. A larger Mac keeps the 4 GiB: macOS
// grows with the memory (a 24 GB Mac's kernel wired 3.5-3.6 GB,
// john-rocky/apple-silicon-llm-bench#7; a headless 64 GB M2 Max idles at
// about 4 GB, jundot/omlx#1533). Other apps open take from either.
constexpr std::int64_t kSmallMacBytes = std::int64_t{16} << 30;
constexpr std::int64_t kSmallMacOsReserveBytes = (std::int64_t{8} << 30) / 3;

bool runs_macos(const Device& device) {
  return device.backend == Backend::metal || device.native_backend == Backend::metal;
}

// macOS's default GPU wired limit (recommendedMaxWorkingSetSize): 75% of RAM
// above 36 GB, two thirds at or below (21,845 MB of 32 GB, 73,728 MB of 96 GB).
std::int64_t apple_default_wired_limit(std::int64_t ram) {
  return ram > 36 * static_cast<std::int64_t>(kGiB) ? ram / 4 * 3 : ram / 3 * 2;
}

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

bool backend_runs_on(Backend backend, const Device& d) {
  // Judged from the device's own backend, whichever a request chose for it.
  const Backend own = d.native_backend != Backend::other ? d.native_backend : d.backend;
  if (backend == own) return true;
  if (d.kind == DeviceKind::cpu) return false;
  switch (backend) {
    // A Vulkan driver comes with NVIDIA, AMD and Intel GPUs (not Apple's, nor
    // NPUs and accelerators with a runtime of their own: Ascend, Gaudi, Kunlunxin...).
    // (An AMD card without a ROCm build, the RX 580's Polaris, has Vulkan as its own.)
    case Backend::vulkan: return own == Backend::cuda || own == Backend::rocm || own == Backend::sycl;
    // A vendor's compute runtime runs where it is the device's own backend
    // (the first test): not ROCm on a Polaris card, nor SYCL on Intel's Gaudi.
    default: return false;
  }
}

void choose_backend(Device& device, Backend backend) {
  if (device.native_backend == Backend::other) device.native_backend = device.backend;
  device.backend = backend;
}

bool has_shared_pool(const Device& device) {
  return device.kind != DeviceKind::cpu &&
         (device.unified_memory || device.kind == DeviceKind::unified || device.kind == DeviceKind::apu);
}

bool is_whole_machine(const Device& device) {
  if (device.kind == DeviceKind::unified) return true;
  return device.kind == DeviceKind::apu && device.memory_type.find("HBM") == std::string::npos;
}

bool shares_memory_with_cpu(const Device& device) { return has_shared_pool(device) || device.kind == DeviceKind::cpu; }

std::int64_t os_reserve_bytes(std::int64_t memory_bytes) { return std::min(kOsReserveBytes, memory_bytes); }
std::int64_t os_reserve_bytes(const Device& device) {
  if (runs_macos(device) && device.memory_bytes <= kSmallMacBytes)
    return std::min(kSmallMacOsReserveBytes, device.memory_bytes);
  return os_reserve_bytes(device.memory_bytes);
}

UsableMemory usable_memory(const Device& device, std::int64_t gpu_limit_bytes) {
  UsableMemory m;
  if (has_shared_pool(device)) {
    // One memory: the GPU may take up to its limit (macOS's wired limit, a
    // Linux GTT limit, or a limit the user raised), never more than what the
    // operating system leaves.
    m.shared_pool_bytes = device.memory_bytes;
    m.os_reserve_bytes = os_reserve_bytes(device);
    const std::int64_t most = device.memory_bytes - m.os_reserve_bytes;
    if (gpu_limit_bytes > 0) {
      m.capacity_bytes = gpu_limit_bytes;
      m.basis = "user-gpu-limit";
    } else if (runs_macos(device)) {
      m.capacity_bytes = apple_default_wired_limit(device.memory_bytes);
      m.basis = "apple-wired-limit";
    } else if (device.gpu_memory_limit_bytes > 0) {
      m.capacity_bytes = device.gpu_memory_limit_bytes;
      m.basis = "gpu-memory-limit";
    } else {
      m.capacity_bytes = most;
      m.basis = "unified-less-os-reserve";
    }
    m.capacity_bytes = std::min(m.capacity_bytes, most);
  } else if (device.kind == DeviceKind::cpu) {
    m.capacity_bytes = device.memory_bytes;
    m.reserved_bytes = os_reserve_bytes(device);
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

bool bought_as_servers(const Device& d, int count) {
  return d.server_price_usd && d.server_gpus > 0 && count > 0 && count % d.server_gpus == 0;
}

std::optional<double> purchase_usd(const Device& d, int count) {
  if (bought_as_servers(d, count)) return *d.server_price_usd * (count / d.server_gpus);
  if (d.price_usd) return *d.price_usd * count;
  return std::nullopt;
}

}  // namespace llmsizer
