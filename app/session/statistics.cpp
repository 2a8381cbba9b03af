#include "app/session/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace loadscope::app {

namespace {

// Continued fraction of the incomplete beta function, evaluated with the
// modified Lentz method; converges quickly for x < (a + 1) / (a + b + 2).
double betaContinuedFraction(double a, double b, double x) {
    constexpr int kMaxTerms = 300;
    constexpr double kEpsilon = 1e-15;
    constexpr double kTiny = 1e-300;

    auto guard = [](double value) {
        return std::fabs(value) < kTiny ? kTiny : value;
    };
    double c = 1.0;
    double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    double result = d;
    for (int m = 1; m <= kMaxTerms; ++m) {
        const double twoM = 2.0 * m;
        // Even term d_{2m}.
        double numerator = m * (b - m) * x / ((a + twoM - 1.0) * (a + twoM));
        d = 1.0 / guard(1.0 + numerator * d);
        c = guard(1.0 + numerator / c);
        result *= d * c;
        // Odd term d_{2m+1}.
        numerator = -(a + m) * (a + b + m) * x / ((a + twoM) * (a + twoM + 1.0));
        d = 1.0 / guard(1.0 + numerator * d);
        c = guard(1.0 + numerator / c);
        const double step = d * c;
        result *= step;
        if (std::fabs(step - 1.0) < kEpsilon)
            break;
    }
    return result;
}

// I_x(a, b), the regularised incomplete beta function.
double regularizedIncompleteBeta(double a, double b, double x) {
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(logFront);
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * betaContinuedFraction(a, b, x) / a;
    return 1.0 - front * betaContinuedFraction(b, a, 1.0 - x) / b;
}

double mean(const std::vector<double>& samples) {
    return std::accumulate(samples.begin(), samples.end(), 0.0) /
           static_cast<double>(samples.size());
}

double sampleVariance(const std::vector<double>& samples, double average) {
    double sum = 0;
    for (double sample : samples)
        sum += (sample - average) * (sample - average);
    return sum / static_cast<double>(samples.size() - 1);
}

} // namespace

SampleStatistics sampleStatistics(const std::vector<double>& samples) {
    SampleStatistics statistics;
    statistics.n = static_cast<int>(samples.size());
    if (samples.empty())
        return statistics;
    statistics.mean = mean(samples);
    if (samples.size() < 2)
        return statistics;
    const double sd = std::sqrt(sampleVariance(samples, statistics.mean));
    statistics.sd = sd;
    const double halfWidth =
        studentTQuantile(0.975, statistics.n - 1.0) * sd / std::sqrt(double(statistics.n));
    statistics.ci95Low = statistics.mean - halfWidth;
    statistics.ci95High = statistics.mean + halfWidth;
    // A figure that cannot be negative (a count, a rate, a time) gets no
    // interval below 0: three runs of 0, 0 and 3 failures are not "-3 to 5".
    if (std::all_of(samples.begin(), samples.end(), [](double s) { return s >= 0; }))
        statistics.ci95Low = std::max(0.0, *statistics.ci95Low);
    return statistics;
}

double studentTCdf(double t, double dof) {
    if (std::isnan(t) || !(dof > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    // P(|T| > |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2)
    const double tail = 0.5 * regularizedIncompleteBeta(dof / 2.0, 0.5, dof / (dof + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double studentTQuantile(double p, double dof) {
    if (!(p > 0 && p < 1) || !(dof > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -studentTQuantile(1.0 - p, dof);
    // The CDF is monotonic: widen until it brackets p, then bisect to the
    // last bit. A few hundred evaluations, only when a comparison is built.
    double low = 0;
    double high = 1;
    while (studentTCdf(high, dof) < p && high < 1e300)
        high *= 2;
    for (int i = 0; i < 200 && high - low > 1e-14 * high; ++i) {
        const double middle = 0.5 * (low + high);
        (studentTCdf(middle, dof) < p ? low : high) = middle;
    }
    return 0.5 * (low + high);
}

QString comparisonMethodId(ComparisonMethod method) {
    return method == ComparisonMethod::Paired ? QStringLiteral("paired") : QStringLiteral("welch");
}

namespace {

// The interval estimate +/- t(0.975, dof) x standardError, or a zero-width
// "no spread" one.
DifferenceInterval tInterval(double estimate, double standardError, double dof) {
    DifferenceInterval interval;
    interval.estimate = estimate;
    interval.dof = dof;
    if (!(standardError > 0)) {
        interval.low = interval.high = estimate;
        interval.noSpread = true;
        return interval;
    }
    const double half = studentTQuantile(0.975, dof) * standardError;
    interval.low = estimate - half;
    interval.high = estimate + half;
    interval.pValue = 2.0 * studentTCdf(-std::fabs(estimate / standardError), dof);
    return interval;
}

std::optional<std::vector<double>> logs(const std::vector<double>& samples) {
    std::vector<double> out;
    out.reserve(samples.size());
    for (double sample : samples) {
        if (!(sample > 0) || !std::isfinite(sample))
            return std::nullopt;
        out.push_back(std::log(sample));
    }
    return out;
}

} // namespace

std::optional<DifferenceInterval> welchDifference(const std::vector<double>& a,
                                                  const std::vector<double>& b) {
    if (a.size() < 2 || b.size() < 2)
        return std::nullopt;
    const double meanA = mean(a);
    const double meanB = mean(b);
    const double na = static_cast<double>(a.size());
    const double nb = static_cast<double>(b.size());
    const double varianceA = sampleVariance(a, meanA) / na;
    const double varianceB = sampleVariance(b, meanB) / nb;
    const double squaredError = varianceA + varianceB;
    const double dof =
        squaredError > 0 ? squaredError * squaredError /
                               (varianceA * varianceA / (na - 1) + varianceB * varianceB / (nb - 1))
                         : na + nb - 2;
    return tInterval(meanA - meanB, std::sqrt(squaredError), dof);
}

std::optional<DifferenceInterval> pairedDifference(const std::vector<double>& a,
                                                   const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 2)
        return std::nullopt;
    std::vector<double> differences(a.size());
    for (size_t i = 0; i < a.size(); ++i)
        differences[i] = a[i] - b[i];
    const double n = static_cast<double>(differences.size());
    const double average = mean(differences);
    return tInterval(average, std::sqrt(sampleVariance(differences, average) / n), n - 1);
}

std::optional<RatioInterval> logRatioInterval(const std::vector<double>& a,
                                              const std::vector<double>& b,
                                              ComparisonMethod method) {
    const auto logA = logs(a);
    const auto logB = logs(b);
    if (!logA || !logB)
        return std::nullopt;
    const auto difference = method == ComparisonMethod::Paired ? pairedDifference(*logA, *logB)
                                                               : welchDifference(*logA, *logB);
    if (!difference)
        return std::nullopt;
    RatioInterval ratio;
    ratio.method = method;
    ratio.ratio = std::exp(difference->estimate);
    ratio.low = std::exp(difference->low);
    ratio.high = std::exp(difference->high);
    ratio.pValue = difference->pValue;
    ratio.noSpread = difference->noSpread;
    return ratio;
}

double quantileR8(std::vector<double> samples, double p) {
    if (samples.empty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(samples.begin(), samples.end());
    // Position h = (N + 1/3) p + 1/3 among the order statistics x_1 .. x_N.
    const double h =
        (static_cast<double>(samples.size()) + 1.0 / 3.0) * std::clamp(p, 0.0, 1.0) + 1.0 / 3.0;
    const double whole = std::floor(h);
    if (whole < 1)
        return samples.front();
    if (whole >= static_cast<double>(samples.size()))
        return samples.back();
    const size_t k = static_cast<size_t>(whole);
    return samples[k - 1] + (h - whole) * (samples[k] - samples[k - 1]);
}

std::vector<bool> iqrOutliers(const std::vector<double>& samples) {
    std::vector<bool> flags(samples.size(), false);
    if (samples.size() < 3)
        return flags;
    const double q1 = quantileR8(samples, 0.25);
    const double q3 = quantileR8(samples, 0.75);
    const double fence = 1.5 * (q3 - q1);
    for (size_t i = 0; i < samples.size(); ++i)
        flags[i] = samples[i] < q1 - fence || samples[i] > q3 + fence;
    return flags;
}

} // namespace loadscope::app
