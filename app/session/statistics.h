#pragma once

#include <optional>
#include <vector>

// Small-sample statistics over repetitions of a point.
//
// A sweep repeats each point a few times (3 by default), so intervals use
// Student's t distribution with n - 1 degrees of freedom, not the normal
// approximation, and a difference between two modes is judged with Welch's
// t-test, which does not assume the two modes vary alike (a NAT path often
// scatters more than the host). The t distribution is evaluated through the
// regularised incomplete beta function, so fractional Welch degrees of
// freedom need no table.
namespace loadscope::app {

struct SampleStatistics {
    int n = 0;
    double mean = 0;
    std::optional<double> sd;      // sample standard deviation (n - 1); n >= 2
    std::optional<double> ci95Low; // mean -/+ t(0.975, n - 1) * sd / sqrt(n); n >= 2
    std::optional<double> ci95High;
};

SampleStatistics sampleStatistics(const std::vector<double>& samples);

// P(T <= t) for Student's t with `dof` (> 0, may be fractional) degrees of freedom.
double studentTCdf(double t, double dof);
// The t with P(T <= t) = p, for p in (0, 1).
double studentTQuantile(double p, double dof);

struct WelchTestResult {
    double t = 0;      // (mean a - mean b) / standard error of the difference
    double dof = 0;    // Welch-Satterthwaite degrees of freedom
    double pValue = 1; // two-sided
};

// Welch's unequal-variance t-test of "the means differ". nullopt when either
// side has fewer than two samples. When both sides have no spread at all, p
// is 0 for different means and 1 for equal ones.
std::optional<WelchTestResult> welchTest(const std::vector<double>& a,
                                         const std::vector<double>& b);

// The significance level of verdicts: a difference is "significant" when
// Welch's two-sided p-value is below it.
inline constexpr double kSignificanceLevel = 0.05;

} // namespace loadscope::app
