#pragma once

#include <QString>

namespace loadscope::app {

struct Session;

// What would make the session's comparison tighter, from what was measured:
// the spread of repetitions (coefficient of variation of each target's
// primary metric at each level), whether threads were pinned, and how many
// points were noisy and why. Ends a report; empty without measured results.
QString tighteningAdvice(const Session& session);

// Repetitions needed for a 95 % interval of about ±`halfWidthPercent` of the
// mean, given a coefficient of variation `cvPercent`: (1.96 cv / h)^2, at least 2.
int repetitionsFor(double cvPercent, double halfWidthPercent);

} // namespace loadscope::app
