#include "app/session/capacity_search.h"

#include "app/session/session.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace loadscope::app {

namespace {

// A rate as the summaries print it: whole requests/s from 100 up.
QString rateText(double rate) {
    return QString::number(rate, 'f',
                           rate >= 100  ? 0
                           : rate >= 10 ? 1
                                        : 3) +
           QStringLiteral(" req/s");
}

// Every connection busy: Little's law, achieved rate x mean time from send to
// answer, at least 90 % of the connections.
bool everyConnectionBusy(const CapacityStepRecord& step, int connections) {
    const std::optional<double> meanMs = step.result->uncorrected.meanMs;
    if (!meanMs || connections <= 0)
        return false;
    return step.result->requestsPerSecond() * *meanMs / 1000.0 >= 0.9 * connections;
}

// The server answered as fast as at `referenceMs` (its lightly loaded mean
// from send to answer): within a quarter more.
bool answeredAsFast(const CapacityStepRecord& step, double referenceMs) {
    const std::optional<double> meanMs = step.result->uncorrected.meanMs;
    return meanMs && *meanMs <= 1.25 * referenceMs;
}

} // namespace

double capacityStepSeconds(const CapacityPlan& plan, double rate) {
    const double tailShare = 1.0 - plan.objective.percentile / 100.0;
    double seconds = plan.maxStepSeconds;
    if (rate > 0 && tailShare > 0)
        seconds = double(kCapacityTailSamples) / (tailShare * rate);
    return std::clamp(seconds, plan.minStepSeconds, plan.maxStepSeconds);
}

SweepPlan capacityStepPlan(const SweepPlan& plan, double rate) {
    SweepPlan step = plan;
    step.levelKind = SweepLevelKind::Rate;
    step.rateLevels = {rate};
    step.limit = PointLimit::Duration;
    step.durationSeconds = capacityStepSeconds(plan.capacity, rate);
    step.repetitions = 1;
    step.precisionPercent = 0;
    return step;
}

SweepPlan capacityProbePlan(const SweepPlan& plan) {
    SweepPlan probe = plan;
    probe.levelKind = SweepLevelKind::Concurrency;
    probe.concurrencyLevels = {plan.rateConnections};
    probe.limit = PointLimit::Duration;
    probe.durationSeconds = plan.capacity.minStepSeconds;
    probe.repetitions = 1;
    probe.precisionPercent = 0;
    return probe;
}

int typicalCapacitySteps(const CapacityPlan& plan) {
    const double precision = std::clamp(plan.precisionPercent / 100, 1e-6, 0.99);
    // Each bisection halves the log of the bracket's ratio.
    const double halvings =
        std::log2(std::log(1 / kCapacitySecondStepFraction) / -std::log(1 - precision));
    return std::min(plan.maxSteps, 2 + std::max(0, int(std::ceil(halvings))));
}

SweepPlan pointPlan(const SweepPlan& plan, const SweepPoint& point) {
    if (plan.levelKind != SweepLevelKind::Capacity)
        return plan;
    return point.capacityStep > 0 ? capacityStepPlan(plan, point.rate) : capacityProbePlan(plan);
}

double firstCapacityStepRate(double probeRate) {
    return std::clamp(probeRate, kMinRate, kMaxRate);
}

QString capacityStopId(CapacityStop stop) {
    switch (stop) {
    case CapacityStop::Precision:
        return QStringLiteral("precision");
    case CapacityStop::StepBudget:
        return QStringLiteral("step-budget");
    case CapacityStop::ClientLimited:
        return QStringLiteral("client-limited");
    case CapacityStop::NoRateMeets:
        return QStringLiteral("no-rate-meets");
    case CapacityStop::RateCeiling:
        break;
    }
    return QStringLiteral("rate-ceiling");
}

std::optional<double> CapacitySearch::capacity() const {
    if (!highestMet)
        return std::nullopt;
    return steps[*highestMet].rate;
}

std::optional<double> CapacitySearch::lowestMissedRate() const {
    if (!lowestMissed)
        return std::nullopt;
    return steps[*lowestMissed].rate;
}

std::optional<double> CapacitySearch::bracketPercent() const {
    const auto met = capacity();
    const auto missed = lowestMissedRate();
    if (!met || !missed)
        return std::nullopt;
    return (*missed - *met) / *missed * 100.0;
}

QString CapacitySearch::summary() const {
    if (steps.empty())
        return QStringLiteral("not started");
    const auto missedText = [this] {
        const CapacityStepRecord& missed = steps[*lowestMissed];
        return QStringLiteral("missed at %1: %2").arg(rateText(missed.rate), missed.judgement.why);
    };
    if (stop == CapacityStop::ClientLimited) {
        const CapacityStepRecord& limited = steps[*clientLimited];
        const QString at = QStringLiteral("the client was the limit at %1 (%2)")
                               .arg(rateText(limited.rate), limited.judgement.why);
        return capacity() ? QStringLiteral("at least %1: %2").arg(rateText(*capacity()), at)
                          : QStringLiteral("no answer: %1").arg(at);
    }
    if (!capacity()) {
        // Every step missed: the lowest one's figures say by how much, of
        // the attempt that counted when it was asked again.
        const auto lowest = std::min_element(
            steps.begin(), steps.end(),
            [](const CapacityStepRecord& a, const CapacityStepRecord& b) {
                return a.rate < b.rate || (a.rate == b.rate && a.askedAgain && !b.askedAgain);
            });
        const QString text = QStringLiteral("at %1 (the lowest step) %2")
                                 .arg(rateText(lowest->rate), lowest->judgement.why);
        if (!finished())
            return QStringLiteral("no rate has met it yet: ") + text;
        if (stop == CapacityStop::StepBudget)
            return QStringLiteral("no rate met it before the step budget was spent: ") + text;
        return QStringLiteral("no rate meets it: ") + text;
    }
    QString text = rateText(*capacity());
    if (lowestMissed) {
        text += QStringLiteral(" (%1; within %2 %)")
                    .arg(missedText())
                    .arg(QString::number(*bracketPercent(), 'f', 1));
    } else {
        text = QStringLiteral("at least ") + text + QStringLiteral(" (no step missed)");
    }
    if (!finished())
        text += QStringLiteral(", search not finished");
    else if (stop == CapacityStop::StepBudget)
        text += QStringLiteral(", step budget spent");
    else if (stop == CapacityStop::RateCeiling)
        text += QStringLiteral(", at the highest rate a plan may offer");
    return text;
}

CapacitySearch capacitySearch(const SweepPlan& plan, const QUuid& targetId, int repetition,
                              std::vector<const PointResult*> steps) {
    CapacitySearch search;
    search.targetId = targetId;
    search.repetition = repetition;
    search.connections = plan.rateConnections;
    const CapacityPlan& capacity = plan.capacity;
    std::sort(steps.begin(), steps.end(), [](const PointResult* a, const PointResult* b) {
        return a->capacityStep < b->capacityStep;
    });
    for (const PointResult* result : steps) {
        CapacityStepRecord record;
        record.result = result;
        record.number = result->capacityStep;
        record.rate = result->levelRate();
        record.judgement = judgeCapacityStep(*result, capacity.objective);
        search.steps.push_back(std::move(record));
    }
    if (search.steps.empty())
        return search;

    // An attempt followed by another at its rate was asked again: the later
    // one speaks for the rate (below), and only it is judged here.
    const auto superseded = [&](size_t i) {
        return i + 1 < search.steps.size() && search.steps[i + 1].rate == search.steps[i].rate;
    };
    // The lightly loaded latency from send to answer: of the lowest step that
    // met; with none, the fastest answered step's.
    std::optional<double> lightestMeanMs;
    double lightestRate = 0;
    bool lightestMet = false;
    for (size_t i = 0; i < search.steps.size(); ++i) {
        const CapacityStepRecord& step = search.steps[i];
        const auto mean = step.result->uncorrected.meanMs;
        if (!mean || superseded(i))
            continue;
        const bool met = step.judgement.verdict == StepVerdict::Met;
        if (met ? (!lightestMet || step.rate < lightestRate)
                : (!lightestMet && (!lightestMeanMs || *mean < *lightestMeanMs))) {
            lightestMeanMs = mean;
            lightestRate = step.rate;
            lightestMet = met;
        }
    }
    // A miss with every connection busy: the requests waited for a
    // connection. The server answered as fast as when lightly loaded: too few
    // connections, the client's limit. Slower: the connections waited for
    // the server, whose queue that is, whatever the client's CPU did
    // meanwhile (a client late on an idle connection has none busy to be
    // late with).
    std::optional<size_t> connectionLimited;
    for (size_t i = 0; i < search.steps.size(); ++i) {
        CapacityStepRecord& step = search.steps[i];
        StepJudgement& judged = step.judgement;
        if (judged.verdict == StepVerdict::Met || superseded(i) ||
            !everyConnectionBusy(step, plan.rateConnections))
            continue;
        // Against another step: this one alone cannot tell.
        const bool compared = lightestMeanMs && lightestRate != step.rate;
        const bool asFast = compared && answeredAsFast(step, *lightestMeanMs);
        if (asFast && judged.verdict == StepVerdict::Missed && lightestMet) {
            judged.verdict = StepVerdict::ClientLimited;
            judged.why +=
                QStringLiteral(" while all %1 connections were busy and the server answered as "
                               "fast as at %2: more connections would offer more")
                    .arg(plan.rateConnections)
                    .arg(rateText(lightestRate));
            if (!connectionLimited)
                connectionLimited = i;
        } else if (judged.verdict == StepVerdict::ClientLimited) {
            // Not the client's CPU: a miss, which lower steps may still show
            // to be the connections' (above) once one met as fast.
            judged.verdict = StepVerdict::Missed;
            judged.why += compared && !asFast
                              ? QStringLiteral(", but all %1 connections were busy waiting for "
                                               "a server slower than at %2: the server's limit")
                                    .arg(plan.rateConnections)
                                    .arg(rateText(lightestRate))
                              : QStringLiteral(", but all %1 connections were busy: the requests "
                                               "queued for them, not for the client's CPU")
                                    .arg(plan.rateConnections);
        }
    }
    // Attempts at one rate: consecutive steps at the same rate, which only a
    // step asked again makes. The last attempt speaks for the rate; the
    // earlier ones were asked again and count for nothing.
    const double bound = capacity.objective.boundMs;
    const bool budgetLeft = int(search.steps.size()) < capacity.maxSteps;
    bool askAgain = false;   // the last step is to be asked again
    bool clientStop = false; // the client was the limit of the last step
    for (size_t first = 0; first < search.steps.size();) {
        size_t last = first;
        while (last + 1 < search.steps.size() &&
               search.steps[last + 1].rate == search.steps[first].rate)
            ++last;
        for (size_t k = first; k < last; ++k)
            search.steps[k].askedAgain = true;
        const bool trailing = last + 1 == search.steps.size();
        CapacityStepRecord& decisive = search.steps[last];
        StepJudgement& judged = decisive.judgement;
        if (judged.verdict == StepVerdict::ClientLimited && !connectionLimited) {
            // A client that could not keep the schedule may have been kept
            // from its CPU by other load for a moment: asked again, at most
            // kCapacityClientRetries times. Then the step counts as a miss
            // when the server missed the bound even from each request's
            // actual send, and either the client did offer the rate or its
            // CPU was not spent (a server that took no more than it could
            // falls short of the rate too; a client on CPU all the step may
            // have taken the server's CPU with it); otherwise the client was
            // the limit.
            int late = 0;
            bool fellShort = true;
            for (size_t k = last + 1;
                 k-- > first && search.steps[k].judgement.verdict == StepVerdict::ClientLimited;) {
                const auto achieved = search.steps[k].judgement.achievedPercent;
                fellShort = fellShort && achieved && *achieved < kCapacityOfferedShare * 100;
                ++late;
            }
            const bool serverSlow = !judged.sentLatencyMs || *judged.sentLatencyMs > bound;
            const bool clientSpent = decisive.result->clientCpuLoad() >= kCapacityClientCpuSpent;
            const bool asked = late > kCapacityClientRetries;
            if (trailing && !asked && budgetLeft) {
                askAgain = true;
            } else if (asked && serverSlow && (!fellShort || !clientSpent)) {
                judged.verdict = StepVerdict::Missed;
                judged.why += QStringLiteral(", in %1 attempts").arg(late);
            } else if (trailing && (!serverSlow || (fellShort && clientSpent))) {
                clientStop = true;
            }
            // Otherwise the budget was spent before the step was asked
            // enough to count as a miss: it counts as neither.
        } else if (trailing && judged.verdict == StepVerdict::Missed && judged.tailOnly &&
                   budgetLeft) {
            // A miss in the tail alone, as a stall of the machine leaves one,
            // is asked again once before it counts.
            const auto tailMisses = std::count_if(
                search.steps.begin() + std::ptrdiff_t(first),
                search.steps.begin() + std::ptrdiff_t(last) + 1, [](const auto& step) {
                    return step.judgement.verdict == StepVerdict::Missed && step.judgement.tailOnly;
                });
            askAgain = tailMisses <= kCapacityTailRetries;
        }
        first = last + 1;
    }

    for (size_t i = 0; i < search.steps.size(); ++i) {
        const CapacityStepRecord& step = search.steps[i];
        if (step.judgement.verdict == StepVerdict::Missed && !step.askedAgain &&
            (!search.lowestMissed || step.rate < search.steps[*search.lowestMissed].rate))
            search.lowestMissed = i;
    }
    const std::optional<double> ceiling = search.lowestMissedRate();
    for (size_t i = 0; i < search.steps.size(); ++i) {
        CapacityStepRecord& step = search.steps[i];
        if (step.judgement.verdict != StepVerdict::Met || step.askedAgain)
            continue;
        if (ceiling && step.rate >= *ceiling) {
            step.inconsistent = true;
            continue;
        }
        if (!search.highestMet || step.rate > search.steps[*search.highestMet].rate)
            search.highestMet = i;
    }

    // Too few connections do not go away when asked again: the search ends.
    if (connectionLimited) {
        search.clientLimited = connectionLimited;
        search.stop = CapacityStop::ClientLimited;
        return search;
    }
    if (askAgain) {
        search.nextRate = search.steps.back().rate;
        return search;
    }
    if (clientStop) {
        search.clientLimited = search.steps.size() - 1;
        search.stop = CapacityStop::ClientLimited;
        return search;
    }
    const auto met = search.capacity();
    const auto missed = search.lowestMissedRate();
    if (met && missed && (*missed - *met) / *missed * 100.0 <= capacity.precisionPercent) {
        search.stop = CapacityStop::Precision;
        return search;
    }
    if (!met && !missed) {
        // No step counted either way: the budget ran out while a late
        // client's step was still being asked again.
        if (int(search.steps.size()) >= capacity.maxSteps)
            search.stop = CapacityStop::StepBudget;
        else
            search.nextRate = search.steps.back().rate;
        return search;
    }
    if (!met) {
        // Every step missed. Lower load that brought no step nearer to the
        // objective, or a miss far below where the search began, ends it.
        std::vector<const CapacityStepRecord*> misses;
        for (const CapacityStepRecord& step : search.steps)
            if (step.judgement.verdict == StepVerdict::Missed && !step.askedAgain)
                misses.push_back(&step);
        std::sort(misses.begin(), misses.end(),
                  [](const auto* a, const auto* b) { return a->rate < b->rate; });
        // The lowest miss against the lowest at twice its rate or more.
        const auto twice = std::find_if(misses.begin(), misses.end(), [&](const auto* step) {
            return step->rate >= 2 * misses.front()->rate;
        });
        const bool flat =
            twice != misses.end() && misses.front()->judgement.excess >=
                                         (1.0 - kCapacityFlatExcess) * (*twice)->judgement.excess;
        // The first conclusive step is where the search began.
        const double firstRate =
            std::find_if(search.steps.begin(), search.steps.end(), [](const auto& step) {
                return step.judgement.verdict != StepVerdict::ClientLimited && !step.askedAgain;
            })->rate;
        const double next = *missed * (misses.size() == 1 ? kCapacitySecondStepFraction : 0.25);
        if (flat || *missed <= firstRate * kCapacityFloorFraction * 1.0001 || next < kMinRate) {
            search.stop = CapacityStop::NoRateMeets;
            return search;
        }
        if (int(search.steps.size()) >= capacity.maxSteps) {
            search.stop = CapacityStop::StepBudget;
            return search;
        }
        search.nextRate = next;
        return search;
    }
    if (int(search.steps.size()) >= capacity.maxSteps) {
        search.stop = CapacityStop::StepBudget;
        return search;
    }
    if (!missed) {
        const auto counted =
            std::count_if(search.steps.begin(), search.steps.end(), [](const auto& step) {
                return step.judgement.verdict == StepVerdict::Met && !step.askedAgain;
            });
        const double next = *met * (counted == 1 ? 1 / kCapacitySecondStepFraction : 2.0);
        if (next > kMaxRate) {
            search.stop = CapacityStop::RateCeiling;
            return search;
        }
        search.nextRate = next;
        return search;
    }
    search.nextRate = std::sqrt(*met * *missed);
    return search;
}

std::vector<CapacitySearch> capacitySearches(const Session& session) {
    std::vector<CapacitySearch> searches;
    const SweepPlan& plan = session.plan;
    if (plan.levelKind != SweepLevelKind::Capacity)
        return searches;
    std::map<std::pair<QUuid, int>, std::vector<const PointResult*>> steps;
    for (const PointResult& result : session.results) {
        if (result.capacityStep > 0 && !result.cancelled &&
            result.concurrency == plan.rateConnections && result.levelRate() > 0)
            steps[{result.targetId, result.repetition}].push_back(&result);
    }
    for (const Target& target : session.targets) {
        // The plan's repetitions, and any other a session holds steps of.
        std::map<int, std::vector<const PointResult*>> byRepetition;
        for (int repetition = 0; repetition < plan.repetitions; ++repetition)
            byRepetition[repetition];
        for (auto it = steps.lower_bound({target.id, std::numeric_limits<int>::min()});
             it != steps.end() && it->first.first == target.id; ++it)
            byRepetition[it->first.second] = it->second;
        for (auto& [repetition, found] : byRepetition)
            searches.push_back(capacitySearch(plan, target.id, repetition, std::move(found)));
    }
    return searches;
}

} // namespace loadscope::app
