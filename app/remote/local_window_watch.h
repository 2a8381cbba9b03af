#pragma once

#include "engine/cpu_sampler.h"

#include <QCoroTask>
#include <QObject>
#include <QTimer>
#include <cstdint>
#include <optional>

namespace loadscope::app {

// This machine's CPU and its server's over a point whose load comes from
// other hosts (the window a host's agent watches there, taken here): a
// sample when the measured time begins, another when end() is called. The
// samples are read off this thread (a server's children are found by a walk
// of /proc), which may be a window's.
class LocalWindowWatch : public QObject {
    Q_OBJECT

public:
    explicit LocalWindowWatch(engine::ServerCpuSource server, QObject* parent = nullptr);

    // The window begins at `atUs` (this machine's clock, µs since the epoch),
    // or now when that has passed.
    void start(int64_t atUs);
    // The window up to now; nullopt when /proc/stat could not be read.
    QCoro::Task<std::optional<engine::CpuWindow>> end();

Q_SIGNALS:
    void started();

private:
    QCoro::Task<> takeFirstSample();

    engine::CpuSampler m_sampler;
    QTimer m_timer;
    std::optional<engine::CpuSample> m_start;
    bool m_sampling = false;
};

} // namespace loadscope::app
