#pragma once

#include <QString>
#include <utility>
#include <variant>

// Errors are values across app/: a function that can fail returns Result<T>
// (an expected-like value holding either a T or an Error), never a bool with an
// error out-parameter. The Error carries what the caller needs to decide
// (code) and to tell the user (one line; the file and line where a file is to
// blame).
namespace loadscope::app {

enum class ErrorCode {
    InvalidInput, // a value the user gave breaks a rule (CLI exit 2)
    Unreachable,  // a name that does not resolve, a server that never answered (exit 3)
    Io,           // a file or device could not be read or written
    Format,       // a file's content is malformed or of an unknown kind
    Duplicate,    // the same thing again (an import of a report already held)
    Cancelled,    // stopped by the user or superseded
    Internal,     // a broken promise inside Loadscope
};

struct Error {
    ErrorCode code = ErrorCode::Internal;
    QString message; // one line, no trailing full stop
    QString file;    // the file to blame, when there is one
    int line = 0;    // 1-based line in `file`; 0 when not known

    // "file:line: message", "file: message" or "message".
    QString toString() const {
        if (file.isEmpty())
            return message;
        if (line > 0)
            return QStringLiteral("%1:%2: %3").arg(file).arg(line).arg(message);
        return QStringLiteral("%1: %2").arg(file, message);
    }
    // The same error with `context` and ": " before its message.
    Error prefixed(const QString& context) const {
        Error copy = *this;
        copy.message = context + QStringLiteral(": ") + message;
        return copy;
    }

    friend bool operator==(const Error&, const Error&) = default;
};

inline Error makeError(ErrorCode code, QString message, QString file = {}, int line = 0) {
    return Error{code, std::move(message), std::move(file), line};
}
inline Error invalidInput(QString message) {
    return makeError(ErrorCode::InvalidInput, std::move(message));
}

template <typename T> class [[nodiscard]] Result {
public:
    Result(T value)
        : m_state(std::in_place_index<0>, std::move(value)) {}
    Result(Error error)
        : m_state(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_state); }
    const T& value() const& { return std::get<0>(m_state); }
    T&& value() && { return std::get<0>(std::move(m_state)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

template <> class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error)
        : m_error(std::move(error))
        , m_ok(false) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_ok = true;
};

} // namespace loadscope::app
