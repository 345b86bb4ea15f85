#include "memory_verdict.hpp"

#include <algorithm>
#include <string>

#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

double ratio(std::int64_t required, std::int64_t available) {
  return available > 0 ? static_cast<double>(required) / static_cast<double>(available) : (required > 0 ? 1e9 : 0.0);
}

// Paged engines size a KV pool from what the GPU leaves after weights and
// buffers, start when one sequence's full window fits in it, and run as many
// sequences at once as it holds; the rest wait in the queue (vLLM's scheduler
// admits a request only when its blocks are free). The GPU shares then hold
// the admitted sequences' KV, not every request's.
void admit_sequences(const Scenario& s, Estimate& e) {
  GpuShare& first = e.memory.per_gpu.front();
  const std::int64_t sequences = s.sequences;
  const std::int64_t ranks = e.memory.attention_ranks;  // GPUs holding disjoint sequences
  const std::int64_t fixed = first.required_bytes - first.kv_cache_bytes;
  const std::int64_t pool_bytes = std::max<std::int64_t>(0, first.usable_bytes - fixed);
  const std::int64_t own = (sequences + ranks - 1) / ranks;  // the first GPU's sequences
  const std::int64_t per_sequence = (first.kv_cache_bytes + own - 1) / own;
  const std::int64_t max_sequences = per_sequence > 0 ? pool_bytes / per_sequence * ranks : sequences;
  e.memory.max_concurrent_sequences = max_sequences;
  // Sized with at least one sequence: the one that must fit for the engine to start.
  const std::int64_t admitted = std::clamp<std::int64_t>(max_sequences, 1, sequences);
  e.memory.concurrent_sequences = admitted;
  if (admitted == sequences) return;
  const std::int64_t admitted_own = (admitted + ranks - 1) / ranks;
  for (GpuShare& g : e.memory.per_gpu) {
    g.kv_cache_bytes = g.kv_cache_bytes / own * admitted_own;
    g.required_bytes = g.weights_bytes + g.kv_cache_bytes + g.runtime_bytes + g.projector_bytes + g.draft_bytes;
  }
  e.memory.kv_cache_bytes = e.kv.total_bytes / sequences * admitted;
  if (max_sequences >= 1)
    e.warnings.push_back("the KV pool holds " + std::to_string(max_sequences) + " sequences of " +
                         std::to_string(s.context_tokens) + " tokens at once: " + std::to_string(admitted) + " of the " +
                         std::to_string(sequences) + " run together and the rest wait in the engine's queue");
}

void check_ram(const Scenario& s, const std::optional<UsableMemory>& usable, Estimate& e) {
  MemoryEstimate& m = e.memory;
  if (usable && usable->shared_pool_bytes > 0 && !m.per_gpu.empty()) {
    // One memory: what stays "in RAM" comes out of what the OS and the GPU's
    // share (its bytes and the runtime's context) leave of the pool.
    m.unified_pool = true;
    m.shared_pool_bytes = usable->shared_pool_bytes;
    m.os_reserve_bytes = usable->os_reserve_bytes;
    m.gpu_limit_bytes = usable->capacity_bytes;
    m.gpu_limit_basis = usable->basis;
    const std::int64_t gpu_share = m.per_gpu.front().required_bytes + usable->reserved_bytes;
    m.system_ram_bytes = std::max<std::int64_t>(0, m.shared_pool_bytes - m.os_reserve_bytes - gpu_share);
    m.ram_fits = m.ram_required_bytes <= m.system_ram_bytes;
    if (!m.ram_fits)
      e.warnings.push_back("unified memory: the GPU's share and the " + std::to_string(m.ram_required_bytes >> 20) +
                           " MiB kept on the CPU's side together exceed the " +
                           std::to_string((m.shared_pool_bytes - m.os_reserve_bytes) >> 20) +
                           " MiB the operating system leaves of the machine's one memory");
    return;
  }
  // A discrete card's host: what is offloaded shares the RAM with the OS.
  m.os_reserve_bytes = os_reserve_bytes(s.system_ram_bytes);
  m.system_ram_bytes = s.system_ram_bytes - m.os_reserve_bytes;
  m.ram_fits = m.ram_required_bytes <= m.system_ram_bytes;
  if (!m.ram_fits)
    e.warnings.push_back("system RAM of " + std::to_string(s.system_ram_bytes >> 30) + " GiB, less " +
                         std::to_string(m.os_reserve_bytes >> 30) +
                         " GiB left to the operating system, cannot hold what this setting keeps there");
}

// The constraint with the highest required/available share: the one to name.
MemoryLimit binding_limit(const std::optional<UsableMemory>& usable, const MemoryEstimate& m) {
  MemoryLimit limit;
  auto consider = [&](const char* where, int index, std::int64_t required, std::int64_t available) {
    const double u = ratio(required, available);
    if (!limit.where.empty() && u <= limit.utilization) return;
    limit = MemoryLimit{where, index, required, available, u};
  };
  for (std::size_t i = 0; i < m.per_gpu.size(); ++i)
    consider("gpu", static_cast<int>(i), m.per_gpu[i].required_bytes, m.per_gpu[i].usable_bytes);
  if (m.unified_pool) {
    if (m.ram_required_bytes > 0) {
      const std::int64_t reserved = usable ? usable->reserved_bytes : 0;
      consider("unified", -1, m.per_gpu.front().required_bytes + reserved + m.ram_required_bytes,
               m.shared_pool_bytes - m.os_reserve_bytes);
    }
  } else if (m.ram_required_bytes > 0) {
    consider("ram", -1, m.ram_required_bytes, m.system_ram_bytes);
  }
  return limit;
}

}  // namespace

void judge_memory(const Scenario& s, const std::optional<UsableMemory>& usable, Estimate& e) {
  MemoryEstimate& m = e.memory;
  m.kv_cache_request_bytes = e.kv.total_bytes;
  m.concurrent_sequences = s.sequences;
  const bool pool = engine_uses_kv_pool(s.engine);
  if (usable && !m.per_gpu.empty()) {
    const std::int64_t per_gpu_usable = usable_bytes_per_gpu(*usable, s);
    for (std::size_t i = 0; i < m.per_gpu.size(); ++i)
      // Mixed cards: each within its own usable bytes.
      m.per_gpu[i].usable_bytes = has_mixed_cards(s) ? usable_bytes_per_gpu(usable_memory(s.cards[i]), s) : per_gpu_usable;
    if (pool) admit_sequences(s, e);
  }
  std::int64_t required = 0;
  m.weights_on_gpus_bytes = m.kv_cache_on_gpus_bytes = 0;
  for (const GpuShare& g : m.per_gpu) {
    required += g.required_bytes;
    m.weights_on_gpus_bytes += g.weights_bytes;
    m.kv_cache_on_gpus_bytes += g.kv_cache_bytes;
  }
  m.required_bytes = required;
  check_ram(s, usable, e);
  if (!usable) return;

  bool all_fit = true;
  std::int64_t usable_sum = 0;
  for (GpuShare& g : m.per_gpu) {
    g.fits = g.required_bytes <= g.usable_bytes;
    all_fit = all_fit && g.fits;
    usable_sum += g.usable_bytes;
  }
  m.usable_bytes = usable_sum;
  m.headroom_bytes = usable_sum - m.required_bytes;
  m.utilization = usable_sum > 0 ? static_cast<double>(m.required_bytes) / static_cast<double>(usable_sum) : 0.0;
  m.fits = all_fit && m.ram_fits;
  m.fit_margin_bytes_per_gpu = pool ? 0 : fit_margin_bytes_per_gpu(s);
  m.limit = binding_limit(usable, m);
  if (pool && !m.per_gpu.empty()) {
    const GpuShare& g = m.per_gpu.front();
    const std::int64_t pool_bytes = std::max<std::int64_t>(0, g.usable_bytes - (g.required_bytes - g.kv_cache_bytes));
    m.kv_pool_bytes = pool_bytes * static_cast<std::int64_t>(m.per_gpu.size());
    const std::int64_t per_token_per_gpu =
        g.kv_cache_bytes > 0 && e.kv.cells > 0
            ? std::max<std::int64_t>(1, g.kv_cache_bytes * s.sequences / m.concurrent_sequences / e.kv.cells)
            : 0;
    m.kv_pool_tokens = per_token_per_gpu > 0 ? pool_bytes / per_token_per_gpu : 0;
  }
}

}  // namespace llmsizer
