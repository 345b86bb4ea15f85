// The edge of a monotone verdict over whole numbers, shared by the planner's
// searches (largest context, fewest layers' experts in RAM).
#pragma once
#include <algorithm>
#include <cstdint>

#include "llmsizer/estimate.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// What one estimate says at a point: whether it fits, and by how many bytes
// (usable less required; negative when it does not).
struct EdgeProbe {
  bool fits = false;
  double margin_bytes = 0.0;
};

// The verdict and margin of an estimate.
EdgeProbe edge_probe(const Estimate& e);
// The GPUs' verdict alone (every GPU holds its share) and the same margin: the
// offload searches' verdict, which only improves as layers or experts move to
// RAM (RAM's only worsens, so it is checked once, at the edge).
EdgeProbe gpu_probe(const Estimate& e);

// The largest k in [lo, hi) that fits, given that lo fits and hi does not, and
// that fits(k) only turns from true to false as k grows. Required memory is
// close to linear in both searches (KV cells per token, expert bytes per
// layer), so interpolating the margin's zero lands on or next to the edge in
// two or three probes. Sliding windows, per-GPU splits and uneven layers bend
// the line; after six interpolations the search bisects, so the worst case
// stays logarithmic. Every verdict is the probe's own: the interpolation only
// chooses where to ask. `probe(k)` returns Result<EdgeProbe>.
template <typename ProbeFn>
Result<std::int64_t> find_edge(std::int64_t lo, EdgeProbe at_lo, std::int64_t hi, EdgeProbe at_hi, ProbeFn&& probe) {
  double margin_lo = at_lo.margin_bytes, margin_hi = at_hi.margin_bytes;
  int interpolations = 0;
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    if (interpolations < 6 && margin_lo > 0.0 && margin_hi < 0.0) {
      ++interpolations;
      const double t = margin_lo / (margin_lo - margin_hi);
      mid = std::clamp<std::int64_t>(lo + static_cast<std::int64_t>(t * static_cast<double>(hi - lo)), lo + 1, hi - 1);
    }
    Result<EdgeProbe> p = probe(mid);
    if (!p) return p.error();
    if (p.value().fits) {
      lo = mid;
      margin_lo = p.value().margin_bytes;
    } else {
      hi = mid;
      margin_hi = p.value().margin_bytes;
    }
  }
  return lo;
}

}  // namespace llmsizer
