// An accelerator (or a Mac / APU with unified memory) and the memory its
// runtime leaves usable.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmsizer {

enum class Backend { cuda, rocm, metal, sycl, cann, vulkan, musa, cpu, other };
enum class DeviceKind { datacenter, workstation, consumer, unified, apu, cpu };

struct Device {
  std::string id;
  std::vector<std::string> aliases;  // older ids that still resolve
  // What its GPU calls itself in llama.cpp's output, where the name shares no
  // word with it ("Radeon 8060S Graphics" for the Ryzen AI Max+ 395).
  std::vector<std::string> reported_names;
  std::string name;
  std::string vendor;  // lowercase: nvidia, amd, apple, intel, ...
  Backend backend = Backend::cuda;
  // The device's own backend once a request chose another for it (Vulkan on a
  // Radeon): what it can run is still judged from its own. other: backend is its own.
  Backend native_backend = Backend::other;
  DeviceKind kind = DeviceKind::consumer;
  std::int64_t memory_bytes = 0;         // as marketed; "80 GB" of HBM is 80 GiB of DRAM; a CPU
                                         // machine (kind cpu): its system RAM
  std::int64_t driver_memory_bytes = 0;  // as the driver reports it, 0 when unknown
  double bandwidth_bytes_per_s = 0.0;
  double fp16_flops = 0.0;  // dense
  double fp32_flops = 0.0;  // vector FP32 (the only GPU figure for most Apple chips), 0 when unknown
  double fp8_flops = 0.0;   // dense, 0 when the part has no FP8 path
  double fp4_flops = 0.0;   // dense, both operands FP4 (NVFP4, MXFP4 x MXFP4); 0 when the part has none
  // The chip generation the engines' kernels are built for, from the
  // catalog's sourced gpu_arch: NVIDIA's compute capability as "sm_89",
  // Huawei's NPU as "ascend310p" / "ascend910b"; "" when not recorded.
  std::string gpu_arch;
  std::string memory_type;  // as listed: "HBM3", "GDDR6X", "LPDDR unified memory", ...; "" when unknown
  double tdp_w = 0.0;
  double interconnect_bytes_per_s = 0.0;  // per-GPU link for tensor parallel (NVLink, PCIe)
  // Purchase price (data/devices.json, from the reference's device_prices.json
  // or the GPU records): the figure used, what kind of figure it is (list,
  // launch_msrp, street_new, street_used, analyst_estimate, server_share), when,
  // the spread where sources disagree, and for Macs and APUs the machine it buys.
  std::optional<double> price_usd;
  std::string price_kind;   // list, launch_msrp, street_new, street_used, analyst_estimate, server_share
  std::string price_as_of;  // the date or year of the figure
  std::string sold_new_until;  // its maker stopped selling it new then ("" while sold, or unknown)
  std::optional<double> price_low_usd, price_high_usd;  // the spread sources quote
  std::string price_machine;  // what the price buys when not the device alone (a Mac's configuration)
  // The reference marks the figure itself as weak (one unconfirmed source, a
  // different variant's price): shown with that label, never a purchase answer.
  bool price_low_confidence = false;
  // A mezzanine module (SXM, OAM) plugs only into a baseboard of these many
  // GPUs (HGX: 4 or 8; AMD's UBB: 8): what a buyer can buy. Empty for a card
  // or a machine, which sells one at a time.
  std::vector<int> server_board_gpus;
  // GPUs in one card or module the runtimes count one by one (an MI250X's two
  // GCDs, an Atlas 300I Duo's two 310Ps): the device is one of them, and a
  // buyer buys them this many at a time. 1 for a GPU sold alone.
  int package_gpus = 1;
  // The whole server a buyer pays for where modules are not sold loose (an
  // 8-GPU HGX or OAM system, host CPUs and RAM included), from a sourced quote:
  // its price, how many of these GPUs it holds, what it is and when.
  std::optional<double> server_price_usd;
  int server_gpus = 0;
  std::string server_name;
  std::string server_price_as_of;
  // A card's launch price beside a current street price_usd (empty when the
  // figure used is the launch price itself or none is known).
  std::optional<double> launch_price_usd;
  bool unified_memory = false;
  // Dies the GPU's memory is attached to: Apple's Ultra parts are two Max dies
  // joined by UltraFusion (1 when not stated; the speed model also reads "Ultra"
  // in an Apple part's name as 2).
  int memory_dies = 1;
  // Unified memory other than Apple's: the most its GPU may allocate by
  // default (Strix Halo's GTT limit on Linux, DGX Spark's), from the catalog's
  // sourced records; 0 when unknown (then the pool less the OS reserve).
  std::int64_t gpu_memory_limit_bytes = 0;
  // Catalog spec fields that are estimates rather than vendor or measured
  // figures (bandwidth_gb_per_s, fp16_tflops, ...: the catalog's names), so a
  // speed that rests on one says so.
  std::vector<std::string> estimated_fields;
  // A CPU machine's widest vector instruction set, as its sources state it:
  // "avx512" or "avx2" ("" when unknown or not a CPU). llama.cpp's quantized
  // CPU GEMMs multiply INT8 with AVX-512 VNNI where the cores have it, so the
  // two reach different shares of the same FP32 peak (their own fitted rows).
  std::string cpu_simd;
  bool is_estimated(const std::string& field) const {
    for (const auto& f : estimated_fields)
      if (f == field) return true;
    return false;
  }
};

// Whether `count` of the device are bought as whole servers: the catalog has
// a sourced server price and count fills a whole number of them.
bool bought_as_servers(const Device& d, int count);
// What `count` of the device cost to buy: those servers' price, else count
// times price_usd; empty when neither is known.
std::optional<double> purchase_usd(const Device& d, int count);

struct UsableMemory {
  std::int64_t capacity_bytes = 0;  // what the runtime can see (driver figure or wired limit)
  std::int64_t reserved_bytes = 0;  // runtime context and engine reserve
  std::int64_t usable_bytes = 0;    // capacity - reserved
  const char* basis = "";           // which rule set capacity: "driver", "marketed", "apple-wired-limit", ...
  // Unified memory (Apple, DGX Spark, Strix Halo, MI300A): the one memory GPU
  // and CPU share, and what the operating system keeps of it. What llama.cpp
  // keeps "in RAM" on such a machine comes out of the same pool. 0 for a
  // discrete card and for a CPU-only machine (whose RAM is the device).
  std::int64_t shared_pool_bytes = 0;
  std::int64_t os_reserve_bytes = 0;
};

Backend backend_from_name(const std::string& name);
const char* backend_name(Backend backend);
// Whether llama.cpp's `backend` runs on the device: its own backend, Vulkan on
// any discrete or integrated GPU but Apple's, CUDA on NVIDIA, ROCm (HIP) on AMD,
// SYCL on Intel, Metal on Apple.
bool backend_runs_on(Backend backend, const Device& device);
// Runs `device` under `backend` (a request's choice), keeping its own backend
// in native_backend so what else it runs is still judged from that.
void choose_backend(Device& device, Backend backend);

// Per-device memory the inference engine cannot use for weights, KV or compute:
// the CUDA/ROCm context (Ollama reserves at least 457 MiB per CUDA GPU and
// 512 MiB on Metal; reference README). Apple: by default the GPU may wire about
// 75% of RAM above 36 GB and two thirds below (recommendedMaxWorkingSetSize:
// 21,845 MB of 32 GB, 73,728 MB of 96 GB). A CPU-only machine (kind cpu):
// its system RAM less a stated 4 GiB reserve for the operating system.
// gpu_limit_bytes > 0: the GPU limit a user set on a unified-memory machine
// (macOS: sudo sysctl iogpu.wired_limit_mb=N) in place of the default.
UsableMemory usable_memory(const Device& device, std::int64_t gpu_limit_bytes = 0);

// GPU and CPU share one memory (not a CPU-only machine, whose RAM is the device).
bool has_shared_pool(const Device& device);

// A computer sold whole, its GPU and memory in one box (a Mac, a DGX Spark, a
// Strix Halo machine): several of them are several computers joined by a
// network, each with its own operating system, not cards in one host. MI300A
// is an APU too, but it sits four to a server board (HBM, Infinity Fabric).
bool is_whole_machine(const Device& device);

// The CPU reads the device's own memory (unified memory, an APU, a CPU-only
// machine): what is "offloaded" stays there, read at the device's bandwidth.
bool shares_memory_with_cpu(const Device& device);

// The operating system's share of a machine's memory: on a Mac of 16 GB or
// less the third of an 8 GB Mac macOS's default GPU limit leaves it
// (2.67 GiB); elsewhere a stated 4 GiB (a Linux server idles well below it; a
// desktop with a browser open, or a larger Mac, comes near it).
std::int64_t os_reserve_bytes(const Device& device);
// The same share of a host's system RAM (what a discrete card's offload may
// not use): 4 GiB, or all of a smaller RAM.
std::int64_t os_reserve_bytes(std::int64_t memory_bytes);

}  // namespace llmsizer
