// The last memory stage of an estimate: with the shares placed on the GPUs and
// in RAM, whether they fit, where the binding limit is, and for paged engines
// how many sequences the KV pool admits at once.
#pragma once
#include <optional>

#include "llmsizer/estimate.hpp"

namespace llmsizer {

// Sets per_gpu[].usable_bytes/fits, required/usable/headroom/utilization, the
// RAM check (on unified memory against what the OS and the GPU's share leave
// of the one pool), kv pool and admission, limit and fits. Without a device:
// only the RAM check against the scenario's system RAM.
void judge_memory(const Scenario& s, const std::optional<UsableMemory>& usable, Estimate& e);

}  // namespace llmsizer
