#pragma once

#include "app/common/result.h"
#include "app/session/sweep_plan.h"
#include "app/session/target.h"
#include "engine/load_spec.h"

#include <QStringList>

// A CLI one-shot as the session model sees it: one target and a one-point
// plan, which the one spec builder (app/sweep/load_spec_builder.h) turns into
// the LoadSpec exactly as it does for a sweep point.
namespace loadscope::cli {

struct OneShot {
    app::Target target;
    app::SweepPlan plan; // one concurrency level, one repetition
    // -R/--rate: requests/s in total over all connections; 0: closed loop.
    // Its arrival model and timer slack are the plan's, as for a sweep.
    double rate = 0;

    int concurrency() const { return plan.concurrencyLevels.front(); }
    // The plan's one point, as a sweep of it would run it.
    app::SweepPoint point() const {
        app::SweepPoint only;
        only.targetId = target.id;
        only.concurrency = concurrency();
        only.rate = rate;
        return only;
    }
};

// The flags of each load command parsed, nothing run; `arguments` as the
// command gets them (argv[0] "loadscope-cli http", then the options). The
// error is the one line the command would print (exit status 2).
app::Result<OneShot> parseHttpOneShot(const QStringList& arguments);
app::Result<OneShot> parseMemcacheOneShot(const QStringList& arguments);
app::Result<OneShot> parseTcpRrOneShot(const QStringList& arguments);
app::Result<OneShot> parseTcpStreamOneShot(const QStringList& arguments);
app::Result<OneShot> parseUdpRrOneShot(const QStringList& arguments);
app::Result<OneShot> parseUdpStreamOneShot(const QStringList& arguments);

} // namespace loadscope::cli
