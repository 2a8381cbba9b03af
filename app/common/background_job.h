#pragma once

#include <QCoroFuture>
#include <QCoroTask>
#include <QFuture>
#include <QObject>
#include <QPromise>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

// Work too slow for the GUI thread (a comparison of ten thousand results, a
// latency distribution merged from a thousand histograms), run on a worker
// thread and handed back to the thread that asked for it.
namespace loadscope::app {

namespace detail {
template <typename T> QCoro::Task<T> awaitFuture(QFuture<T> future) {
    co_return co_await future;
}
} // namespace detail

// Runs `work()` on a thread of the global pool; the awaiting coroutine
// resumes on its own thread (QCoro's QFuture awaiter watches the future from
// there). `work` must not touch objects of the awaiting thread: give it
// copies. Its result is copied once out of the future, so make it cheap to
// copy (a std::shared_ptr to the real thing).
//
// Not a coroutine itself: `work` (a closure) is moved into the pool here,
// and only the future crosses into the coroutine frame.
template <typename Work> QCoro::Task<std::invoke_result_t<Work>> runOnWorkerThread(Work work) {
    using T = std::invoke_result_t<Work>;
    static_assert(!std::is_void_v<T>, "a background job hands back a value");
    auto promise = std::make_shared<QPromise<T>>();
    QFuture<T> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, work = std::move(work)]() mutable {
        promise->addResult(work());
        promise->finish();
    });
    return detail::awaitFuture(std::move(future));
}

// Tells a running job whether its result is still wanted, so that a long
// one can stop early. Safe to ask from the worker thread.
class JobCheck {
public:
    JobCheck(std::shared_ptr<const std::atomic<quint64>> latest, quint64 id)
        : m_latest(std::move(latest))
        , m_id(id) {}

    bool cancelled() const { return m_latest->load(std::memory_order_relaxed) != m_id; }
    quint64 id() const { return m_id; }

private:
    std::shared_ptr<const std::atomic<quint64>> m_latest;
    quint64 m_id = 0;
};

// One kind of background work of one receiver, as hotspot's JobTracker:
// every start() gets a new job id, and only the latest job's result is
// applied. A result of a job that was superseded by a later start() or
// cancelled is dropped, and none is delivered once the receiver is deleted
// (QCoro::connect with the receiver as context). Apply runs on the thread
// that called start(), which is the receiver's.
//
// Typical use, a member of a widget:
//     m_job.start([input](const JobCheck& check) { return build(*input, check); },
//                 [this](Snapshot snapshot) { show(snapshot); });
class BackgroundJob {
public:
    explicit BackgroundJob(QObject* receiver)
        : m_receiver(receiver) {}
    ~BackgroundJob() { cancel(); }
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    // `work(const JobCheck&)` runs on a worker thread; `apply(result)` on
    // this thread, unless the job is superseded or cancelled first.
    template <typename Work, typename Apply> quint64 start(Work work, Apply apply) {
        const quint64 id = m_state->latest.fetch_add(1) + 1;
        m_state->running = id;
        const JobCheck check(std::shared_ptr<const std::atomic<quint64>>(m_state, &m_state->latest),
                             id);
        QCoro::connect(
            runOnWorkerThread([work = std::move(work), check]() mutable { return work(check); }),
            m_receiver, [state = m_state, id, apply = std::move(apply)](auto&& result) {
                if (state->latest.load() != id)
                    return; // superseded or cancelled
                state->running = 0;
                apply(std::forward<decltype(result)>(result));
            });
        return id;
    }

    // Drops the result of the job in flight, if any.
    void cancel() {
        m_state->latest.fetch_add(1);
        m_state->running = 0;
    }
    // A job was started whose result has not been applied (or dropped) yet.
    bool isRunning() const { return m_state->running != 0; }
    // The id of the job whose result will be applied, 0 when none runs.
    quint64 runningJobId() const { return m_state->running; }

private:
    struct State {
        std::atomic<quint64> latest{0};
        quint64 running = 0; // only touched on the receiver's thread
    };
    QObject* m_receiver = nullptr;
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

} // namespace loadscope::app
