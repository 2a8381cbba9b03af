#pragma once

#include "app/session/point_result.h"

#include <QDateTime>
#include <QString>

// The machine a sweep runs on, as each measured result records it: users
// compare numbers months apart and across hosts, and need to see when two
// results were not measured on the same kind of machine.
namespace loadscope::app {

// Host name, kernel, CPU model, cores and Loadscope version, with `startedAt`.
// The thread placement is left to pointResultFromRun(), which knows the run.
RunEnvironment currentRunEnvironment(const QDateTime& startedAt);

// "model name" of /proc/cpuinfo (or the first "Hardware"/"Processor" line on
// ARM), read once; empty when unknown.
QString cpuModelName();

} // namespace loadscope::app
