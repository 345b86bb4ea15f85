#include "log_factor_fit.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace llmsizer {

// A few unknowns and a few dozen rows; the model is smooth in each factor.
LogFactors fit_log_factors(const LogResiduals& residuals_at, const std::array<bool, kFactors>& free, double lowest,
                           double highest) {
  // Sum of squared residuals at x; nullopt where they cannot be had.
  auto cost_at = [&](const LogFactors& at, std::vector<double>* out) -> std::optional<double> {
    std::vector<double> r;
    if (!residuals_at(at, r)) return std::nullopt;
    double sum = 0.0;
    for (double e : r) sum += e * e;
    if (out) *out = std::move(r);
    return sum;
  };
  LogFactors x{};
  const double lo = std::log(lowest);
  const double hi = std::log(highest);
  double lambda = 1e-3;
  std::vector<double> r0;
  auto current = cost_at(x, &r0);
  if (!current) return x;
  for (int iteration = 0; iteration < 60; ++iteration) {
    // Jacobian columns for the free factors.
    std::array<std::vector<double>, kFactors> jac;
    constexpr double h = 1e-4;
    for (std::size_t k = 0; k < kFactors; ++k) {
      if (!free[k]) continue;
      LogFactors xk = x;
      xk[k] += h;
      std::vector<double> rk;
      if (!cost_at(xk, &rk)) return x;
      auto& col = jac[k];
      col.resize(rk.size());
      for (std::size_t i = 0; i < rk.size(); ++i) col[i] = (rk[i] - r0[i]) / h;
    }
    // Normal equations (J'J + lambda diag) d = -J'r on the free factors.
    std::array<std::array<double, kFactors>, kFactors> a{};
    LogFactors g{};
    for (std::size_t p = 0; p < kFactors; ++p) {
      if (!free[p]) continue;
      for (std::size_t i = 0; i < r0.size(); ++i) g[p] -= jac[p][i] * r0[i];
      for (std::size_t q = 0; q < kFactors; ++q) {
        if (!free[q]) continue;
        for (std::size_t i = 0; i < r0.size(); ++i) a[p][q] += jac[p][i] * jac[q][i];
      }
    }
    bool improved = false;
    for (int attempt = 0; attempt < 12 && !improved; ++attempt) {
      std::array<std::array<double, kFactors>, kFactors> m = a;
      LogFactors b = g;
      for (std::size_t p = 0; p < kFactors; ++p) {
        if (free[p]) m[p][p] += lambda * (a[p][p] + 1e-9);
        else {
          m[p] = {};
          m[p][p] = 1.0;
          b[p] = 0.0;
        }
      }
      // Gaussian elimination with partial pivoting on the small system.
      LogFactors d = b;
      bool singular = false;
      for (std::size_t c = 0; c < kFactors && !singular; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < kFactors; ++r)
          if (std::fabs(m[r][c]) > std::fabs(m[pivot][c])) pivot = r;
        if (std::fabs(m[pivot][c]) < 1e-15) {
          singular = true;
          break;
        }
        std::swap(m[c], m[pivot]);
        std::swap(d[c], d[pivot]);
        for (std::size_t r = c + 1; r < kFactors; ++r) {
          const double k = m[r][c] / m[c][c];
          for (std::size_t cc = c; cc < kFactors; ++cc) m[r][cc] -= k * m[c][cc];
          d[r] -= k * d[c];
        }
      }
      if (singular) {
        lambda *= 10.0;
        continue;
      }
      for (std::size_t c = kFactors; c-- > 0;) {
        for (std::size_t cc = c + 1; cc < kFactors; ++cc) d[c] -= m[c][cc] * d[cc];
        d[c] /= m[c][c];
      }
      LogFactors next = x;
      for (std::size_t p = 0; p < kFactors; ++p)
        if (free[p]) next[p] = std::clamp(x[p] + d[p], lo, hi);
      std::vector<double> rn;
      const auto c = cost_at(next, &rn);
      if (c && *c < *current) {
        const double gain = *current - *c;
        x = next;
        r0 = std::move(rn);
        current = c;
        lambda = std::max(lambda / 10.0, 1e-9);
        improved = true;
        if (gain < 1e-12) return x;
      } else {
        lambda *= 10.0;
      }
    }
    if (!improved) break;
  }
  return x;
}

}  // namespace llmsizer
