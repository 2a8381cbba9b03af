#pragma once

// What the machine running the suites states it has: scripts/test.sh probes it
// with its own commands (a link of each kind in a throwaway network namespace,
// the servers' and tools' programs) and lists what it found in
// LOADSCOPE_REQUIRE, space-separated: "sandbox", "mode:NAME" (a lab mode),
// "server:NAME" (a lab server), "sshd", "h2load", "xvfb", "docker-proxy",
// "cpu-profile". A suite that would skip for want of one of those fails
// instead, so that a regression in the product's own check (lab check, a probe)
// cannot pass as a skip. Without the variable, as when a suite runs by hand, a
// skip stays a skip.

#include <QString>
#include <QStringList>
#include <QTest>
#include <QtGlobal>

namespace loadscope::testing {

inline bool requiredHere(const QString& capability) {
    return qEnvironmentVariable("LOADSCOPE_REQUIRE")
        .split(QLatin1Char(' '), Qt::SkipEmptyParts)
        .contains(capability);
}

// Why a test fails where the machine states it has `capability` and the product says not.
inline QString requiredButMissing(const QString& capability, const QString& reason) {
    return capability + QStringLiteral(" is on this machine (LOADSCOPE_REQUIRE), but: ") + reason;
}

} // namespace loadscope::testing

// QSKIP(reason), or QFAIL when the machine states it has `capability`.
#define LOADSCOPE_SKIP_UNLESS_REQUIRED(capability, reason)                                         \
    do {                                                                                           \
        const QString loadscopeCapability = (capability);                                          \
        const QString loadscopeReason = (reason);                                                  \
        if (loadscope::testing::requiredHere(loadscopeCapability))                                 \
            QFAIL(qPrintable(                                                                      \
                loadscope::testing::requiredButMissing(loadscopeCapability, loadscopeReason)));    \
        QSKIP(qPrintable(loadscopeReason));                                                        \
    } while (false)
