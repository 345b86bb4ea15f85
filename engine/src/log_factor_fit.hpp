// Least squares on the logarithms of a few positive factors (a machine's
// speed factors from its measured rows): Levenberg-Marquardt with a numerical
// Jacobian, each factor kept within [lowest, highest]. Factors not free stay
// at 1 (log 0).
#pragma once
#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace llmsizer {

constexpr std::size_t kFactors = 5;  // bandwidth, compute, overhead, attention, KV reads
using LogFactors = std::array<double, kFactors>;

// The residuals (log predicted / measured, one per row) at log factors x;
// false where the rows cannot be predicted there.
using LogResiduals = std::function<bool(const LogFactors& x, std::vector<double>& residuals)>;

LogFactors fit_log_factors(const LogResiduals& residuals_at, const std::array<bool, kFactors>& free, double lowest,
                           double highest);

}  // namespace llmsizer
