#pragma once

#include <QCoreApplication>
#include <QMetaObject>
#include <coroutine>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace loadscope::ui {

// The answer to a question put without waiting (a dialog opened with
// open()), for a coroutine to co_await:
//
//     PendingAnswer<QString> path(QString()); // what "no answer" means
//     m_prompts.openFileName(title, directory, filter, path.answer());
//     const QString chosen = co_await path;
//
// The answer may come at once (then co_await does not suspend) or later,
// from the dialog's signal; only its first call counts. An answer dropped
// uncalled (its dialog deleted with its window) counts as `unanswered`; the
// coroutine then resumes from the event loop, never from inside the
// destructor that dropped it, and must check that its window still exists.
template <typename T> class PendingAnswer {
public:
    explicit PendingAnswer(T unanswered)
        : m_state(std::make_shared<State>()) {
        m_state->unanswered = std::move(unanswered);
    }
    ~PendingAnswer() { m_state->waiting = {}; }
    PendingAnswer(const PendingAnswer&) = delete;
    PendingAnswer& operator=(const PendingAnswer&) = delete;

    // The continuation to hand to the prompt; take it once.
    std::function<void(T)> answer() const {
        return [guard = std::make_shared<Guard>(m_state)](T value) {
            guard->give(std::move(value));
        };
    }

private:
    struct State;

public:
    class Awaiter {
    public:
        explicit Awaiter(std::shared_ptr<State> state)
            : m_state(std::move(state)) {}
        bool await_ready() const noexcept { return m_state->value.has_value(); }
        void await_suspend(std::coroutine_handle<> waiting) noexcept { m_state->waiting = waiting; }
        T await_resume() { return *m_state->value; }

    private:
        std::shared_ptr<State> m_state;
    };
    Awaiter operator co_await() const noexcept { return Awaiter(m_state); }

private:
    struct State {
        std::optional<T> value;
        T unanswered{};
        std::coroutine_handle<> waiting;

        void resume() {
            if (const auto handle = std::exchange(waiting, {}))
                handle.resume();
        }
    };

    // Shared by every copy of one continuation: the last copy to go settles
    // an answer that never came.
    class Guard {
    public:
        explicit Guard(std::shared_ptr<State> state)
            : m_state(std::move(state)) {}
        Guard(const Guard&) = delete;
        Guard& operator=(const Guard&) = delete;
        ~Guard() {
            if (m_state->value)
                return;
            m_state->value = m_state->unanswered;
            if (!m_state->waiting)
                return; // not awaited yet: co_await finds the value
            if (QCoreApplication* application = QCoreApplication::instance())
                QMetaObject::invokeMethod(
                    application, [state = m_state] { state->resume(); }, Qt::QueuedConnection);
        }

        void give(T value) {
            if (m_state->value)
                return; // answered already
            m_state->value = std::move(value);
            // Kept alive across the resumption, which may drop this guard.
            const std::shared_ptr<State> state = m_state;
            state->resume();
        }

    private:
        std::shared_ptr<State> m_state;
    };

    std::shared_ptr<State> m_state;
};

} // namespace loadscope::ui
