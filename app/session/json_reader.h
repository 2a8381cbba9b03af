#pragma once

#include "app/common/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>

namespace loadscope::app {

class JsonArrayReader;

// The first problem of a document: the message, and its two parts.
struct JsonProblem {
    QString message; // field "<path>" <problem>
    QString path;
    QString problem;
};

// Typed, path-aware access to a JSON document that keeps the first problem as
// one message naming the field: `field "targets[2].protocol" has an unknown
// value "ftp"`. After a problem every read returns a neutral default and
// records nothing more, so parsing code reads straight through and checks
// ok() once at the end instead of after every field.
//
// A reader made from a document is a root; the readers of its objects and
// arrays are cheap views that share the root's record of the first problem.
class JsonReader {
public:
    // Largest integer a JSON number holds exactly (2^53).
    static constexpr int64_t kMaxExactInteger = int64_t(1) << 53;

    explicit JsonReader(const QJsonObject& object);

    bool ok() const { return m_problem->message.isEmpty(); }
    // `value` when nothing went wrong, else the first problem (ErrorCode::Format).
    template <typename T> Result<T> result(T value) const {
        if (!ok())
            return error();
        return Result<T>(std::move(value));
    }
    Error error() const { return makeError(ErrorCode::Format, m_problem->message); }
    // The first problem as "<path> <problem>", without the word "field":
    // for a line that names its subject first ("results[3] set aside: ...").
    QString problemText() const { return m_problem->path + QLatin1Char(' ') + m_problem->problem; }
    const QString& path() const { return m_path; }
    const QJsonObject& json() const { return m_object; }
    QString pathOf(QStringView key) const;
    // Records a problem with `path` ("field "<path>" <problem>") unless one is recorded.
    void fail(const QString& path, const QString& problem) const;
    void failKey(QStringView key, const QString& problem) const { fail(pathOf(key), problem); }

    bool has(QStringView key) const;
    QStringList keys() const { return m_object.keys(); }

    // Without a fallback a missing key is a problem; with one it is the value.
    QString string(QStringView key) const;
    QString string(QStringView key, const QString& fallback) const;
    bool boolean(QStringView key) const;
    bool boolean(QStringView key, bool fallback) const;
    double number(QStringView key, double minimum, double maximum) const;
    double number(QStringView key, double minimum, double maximum, double fallback) const;
    std::optional<double> optionalNumber(QStringView key, double minimum, double maximum) const;
    int64_t integer(QStringView key, int64_t minimum, int64_t maximum) const;
    int64_t integer(QStringView key, int64_t minimum, int64_t maximum, int64_t fallback) const;
    uint64_t count(QStringView key) const { return uint64_t(integer(key, 0, kMaxExactInteger)); }
    uint64_t count(QStringView key, uint64_t fallback) const;

    JsonReader object(QStringView key) const;
    std::optional<JsonReader> optionalObject(QStringView key) const;
    JsonArrayReader array(QStringView key) const;
    JsonArrayReader array(QStringView key, bool required) const;

    // For an enumeration read as a string that matched none of its values.
    void failUnknownValue(QStringView key, const QString& text) const;

private:
    friend class JsonArrayReader;
    using Problem = std::shared_ptr<JsonProblem>;
    JsonReader(const QJsonObject& object, Problem problem, QString path);
    QJsonValue value(QStringView key, bool required) const;

    QJsonObject m_object;
    Problem m_problem;
    QString m_path;
};

class JsonArrayReader {
public:
    qsizetype size() const { return m_array.size(); }
    QString pathAt(qsizetype index) const;

    JsonReader objectAt(qsizetype index) const;
    QString stringAt(qsizetype index) const;
    int64_t integerAt(qsizetype index, int64_t minimum, int64_t maximum) const;
    double numberAt(qsizetype index, double minimum, double maximum) const;
    JsonArrayReader arrayAt(qsizetype index) const;

private:
    friend class JsonReader;
    JsonArrayReader(const QJsonArray& array, std::shared_ptr<JsonProblem> problem, QString path);

    QJsonArray m_array;
    std::shared_ptr<JsonProblem> m_problem;
    QString m_path;
};

// `text` with its control characters as escapes (\n, \x1B): for messages
// that quote a file, which must stay one line (printableText(), with a line
// break spelled as the file's JSON spells it).
QString printable(const QString& text);

// The JSON type of a value as messages name it ("a string", "null").
QString jsonTypeName(const QJsonValue& value);

} // namespace loadscope::app
