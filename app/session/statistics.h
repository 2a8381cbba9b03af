#pragma once

#include <QString>
#include <optional>
#include <vector>

// Small-sample statistics over repetitions of a point.
//
// A sweep repeats each point a few times (3 by default), so intervals use
// Student's t distribution with n - 1 degrees of freedom, not the normal
// approximation, and a difference between two modes is judged with Welch's
// t-test, which does not assume the two modes vary alike (a NAT path often
// scatters more than the host), unless the repetitions were interleaved:
// then repetition i of two modes form a pair and the per-pair ratios are
// judged, which takes the machine's drift out. The t distribution is evaluated through the
// regularised incomplete beta function, so fractional Welch degrees of
// freedom need no table.
namespace loadscope::app {

struct SampleStatistics {
    int n = 0;
    double mean = 0;
    std::optional<double> sd;      // sample standard deviation (n - 1); n >= 2
    std::optional<double> ci95Low; // mean -/+ t(0.975, n - 1) * sd / sqrt(n); n >= 2;
                                   // not below 0 when no sample is
    std::optional<double> ci95High;
};

SampleStatistics sampleStatistics(const std::vector<double>& samples);

// P(T <= t) for Student's t with `dof` (> 0, may be fractional) degrees of freedom.
double studentTCdf(double t, double dof);
// The t with P(T <= t) = p, for p in (0, 1).
double studentTQuantile(double p, double dof);

// The significance level of verdicts: a difference is "significant" when
// its 95% interval excludes no change (equivalently, two-sided p below it).
inline constexpr double kSignificanceLevel = 0.05;

// How a target's samples were set against the baseline's.
enum class ComparisonMethod {
    // Repetition i of both ran next to each other (interleaved sweep): the
    // per-pair differences or ratios, so drift of the machine cancels.
    Paired,
    // Independent samples (imports, sequential order, unequal counts).
    Welch,
};
QString comparisonMethodId(ComparisonMethod method); // "paired", "welch"

// A difference a - b with its 95% interval from the t distribution.
struct DifferenceInterval {
    double estimate = 0; // mean a - mean b, or the mean per-pair difference
    double low = 0;
    double high = 0;
    double dof = 0;
    double pValue = 1; // two-sided; 1 when there is no spread
    // The standard error is 0 (no spread on either side, or every pair
    // differs alike): the interval is the estimate alone. The comparison
    // decides what that means (never "significant" without spread on
    // either side).
    bool noSpread = false;
};

// Welch's interval for mean a - mean b; nullopt with fewer than two samples
// on either side.
std::optional<DifferenceInterval> welchDifference(const std::vector<double>& a,
                                                  const std::vector<double>& b);
// The one-sample t interval of the per-pair differences a[i] - b[i];
// nullopt unless both have the same size, two or more.
std::optional<DifferenceInterval> pairedDifference(const std::vector<double>& a,
                                                   const std::vector<double>& b);

// a against b as a ratio, computed on the log scale so that the interval of a
// positive figure never reaches below 0: paired, the geometric mean of the
// per-pair ratios; Welch, the ratio of the geometric means. nullopt when a
// sample is not positive or the sizes do not fit the method.
struct RatioInterval {
    ComparisonMethod method = ComparisonMethod::Welch;
    double ratio = 1;
    double low = 1;
    double high = 1;
    double pValue = 1;
    bool noSpread = false;
};
std::optional<RatioInterval> logRatioInterval(const std::vector<double>& a,
                                              const std::vector<double>& b,
                                              ComparisonMethod method);

// The p-th quantile (p in [0, 1]) by Hyndman and Fan's definition 8, the
// one Go's benchstat uses (golang.org/x/perf stats.Sample.Percentile).
double quantileR8(std::vector<double> samples, double p);
// Which samples lie outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR], with the quartiles
// of quantileR8 as benchstat flags them; all false with fewer than 3 samples.
std::vector<bool> iqrOutliers(const std::vector<double>& samples);

} // namespace loadscope::app
