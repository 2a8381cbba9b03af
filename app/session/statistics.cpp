#include "app/session/statistics.h"

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

std::optional<WelchTestResult> welchTest(const std::vector<double>& a,
                                         const std::vector<double>& b) {
    if (a.size() < 2 || b.size() < 2)
        return std::nullopt;
    const double meanA = mean(a);
    const double meanB = mean(b);
    const double na = static_cast<double>(a.size());
    const double nb = static_cast<double>(b.size());
    const double varianceA = sampleVariance(a, meanA) / na;
    const double varianceB = sampleVariance(b, meanB) / nb;
    const double standardError = std::sqrt(varianceA + varianceB);

    WelchTestResult result;
    if (standardError == 0) {
        // No spread on either side: any difference at all is not noise.
        result.t = meanA == meanB
                       ? 0
                       : std::copysign(std::numeric_limits<double>::infinity(), meanA - meanB);
        result.dof = na + nb - 2;
        result.pValue = meanA == meanB ? 1 : 0;
        return result;
    }
    result.t = (meanA - meanB) / standardError;
    result.dof = (varianceA + varianceB) * (varianceA + varianceB) /
                 (varianceA * varianceA / (na - 1) + varianceB * varianceB / (nb - 1));
    result.pValue = 2.0 * studentTCdf(-std::fabs(result.t), result.dof);
    return result;
}

} // namespace loadscope::app
