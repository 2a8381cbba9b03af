#include "app/session/json_reader.h"

#include "app/common/printable_text.h"

#include <cmath>

namespace loadscope::app {

namespace {

void record(JsonProblem* firstProblem, const QString& path, const QString& problem) {
    if (firstProblem->message.isEmpty()) {
        firstProblem->path = printable(path);
        firstProblem->problem = printable(problem);
        firstProblem->message =
            QStringLiteral("field \"%1\" %2").arg(firstProblem->path, firstProblem->problem);
    }
}

QString wrongType(const char* expected, const QJsonValue& value) {
    return QStringLiteral("should be %1, not %2")
        .arg(QLatin1StringView(expected), jsonTypeName(value));
}

QString numberText(double value) {
    return QString::number(value, 'g', 17);
}

// The value as an integer in [minimum, maximum], or nullopt with a problem recorded.
// `path()` names the field, and is called only for a problem: a large session
// reads hundreds of thousands of fields, each of which would build its path.
template <typename PathOf>
std::optional<int64_t> toInteger(const QJsonValue& value, int64_t minimum, int64_t maximum,
                                 const PathOf& path, JsonProblem* firstProblem) {
    if (!value.isDouble()) {
        record(firstProblem, path(), wrongType("a number", value));
        return std::nullopt;
    }
    const double number = value.toDouble();
    if (!std::isfinite(number) || std::floor(number) != number) {
        record(firstProblem, path(),
               QStringLiteral("is %1, expected a whole number").arg(numberText(number)));
        return std::nullopt;
    }
    if (number < static_cast<double>(minimum) || number > static_cast<double>(maximum)) {
        record(firstProblem, path(),
               QStringLiteral("is %1, expected %2 to %3")
                   .arg(numberText(number))
                   .arg(minimum)
                   .arg(maximum));
        return std::nullopt;
    }
    return static_cast<int64_t>(number);
}

template <typename PathOf>
std::optional<double> toNumber(const QJsonValue& value, double minimum, double maximum,
                               const PathOf& path, JsonProblem* firstProblem) {
    if (!value.isDouble()) {
        record(firstProblem, path(), wrongType("a number", value));
        return std::nullopt;
    }
    const double number = value.toDouble();
    if (!std::isfinite(number) || number < minimum || number > maximum) {
        record(firstProblem, path(),
               QStringLiteral("is %1, expected %2 to %3")
                   .arg(numberText(number), numberText(minimum), numberText(maximum)));
        return std::nullopt;
    }
    return number;
}

} // namespace

QString printable(const QString& text) {
    // A line break as a JSON string writes it; every other control character
    // as printableText() escapes it for every message.
    return printableText(QString(text).replace(QLatin1Char('\n'), QStringLiteral("\\n")));
}

QString jsonTypeName(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("a boolean");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("missing");
}

JsonReader::JsonReader(const QJsonObject& object)
    : JsonReader(object, std::make_shared<JsonProblem>(), QString()) {}

JsonReader::JsonReader(const QJsonObject& object, Problem problem, QString path)
    : m_object(object)
    , m_problem(std::move(problem))
    , m_path(std::move(path)) {}

QString JsonReader::pathOf(QStringView key) const {
    return m_path.isEmpty() ? key.toString() : m_path + QLatin1Char('.') + key;
}

void JsonReader::fail(const QString& path, const QString& problem) const {
    record(m_problem.get(), path, problem);
}

bool JsonReader::has(QStringView key) const {
    return m_object.contains(key);
}

QJsonValue JsonReader::value(QStringView key, bool required) const {
    if (!ok())
        return QJsonValue(QJsonValue::Undefined);
    const QJsonValue found = m_object.value(key);
    if (found.isUndefined() && required)
        failKey(key, QStringLiteral("is missing"));
    return found;
}

QString JsonReader::string(QStringView key) const {
    const QJsonValue found = value(key, true);
    if (found.isUndefined())
        return {};
    if (!found.isString()) {
        failKey(key, wrongType("a string", found));
        return {};
    }
    return found.toString();
}

QString JsonReader::string(QStringView key, const QString& fallback) const {
    return has(key) ? string(key) : fallback;
}

bool JsonReader::boolean(QStringView key) const {
    const QJsonValue found = value(key, true);
    if (found.isUndefined())
        return false;
    if (!found.isBool()) {
        failKey(key, wrongType("true or false", found));
        return false;
    }
    return found.toBool();
}

bool JsonReader::boolean(QStringView key, bool fallback) const {
    return has(key) ? boolean(key) : fallback;
}

double JsonReader::number(QStringView key, double minimum, double maximum) const {
    const QJsonValue found = value(key, true);
    if (found.isUndefined())
        return 0;
    return toNumber(
               found, minimum, maximum, [&] { return pathOf(key); }, m_problem.get())
        .value_or(0);
}

double JsonReader::number(QStringView key, double minimum, double maximum, double fallback) const {
    return has(key) ? number(key, minimum, maximum) : fallback;
}

std::optional<double> JsonReader::optionalNumber(QStringView key, double minimum,
                                                 double maximum) const {
    const QJsonValue found = value(key, false);
    if (found.isUndefined())
        return std::nullopt;
    return toNumber(
        found, minimum, maximum, [&] { return pathOf(key); }, m_problem.get());
}

int64_t JsonReader::integer(QStringView key, int64_t minimum, int64_t maximum) const {
    const QJsonValue found = value(key, true);
    if (found.isUndefined())
        return minimum;
    return toInteger(
               found, minimum, maximum, [&] { return pathOf(key); }, m_problem.get())
        .value_or(minimum);
}

int64_t JsonReader::integer(QStringView key, int64_t minimum, int64_t maximum,
                            int64_t fallback) const {
    return has(key) ? integer(key, minimum, maximum) : fallback;
}

uint64_t JsonReader::count(QStringView key, uint64_t fallback) const {
    return has(key) ? count(key) : fallback;
}

JsonReader JsonReader::object(QStringView key) const {
    const QJsonValue found = value(key, true);
    if (!found.isUndefined() && !found.isObject())
        failKey(key, wrongType("an object", found));
    return JsonReader(found.toObject(), m_problem, pathOf(key));
}

std::optional<JsonReader> JsonReader::optionalObject(QStringView key) const {
    if (!has(key))
        return std::nullopt;
    return object(key);
}

JsonArrayReader JsonReader::array(QStringView key) const {
    return array(key, true);
}

JsonArrayReader JsonReader::array(QStringView key, bool required) const {
    const QJsonValue found = value(key, required);
    if (!found.isUndefined() && !found.isArray())
        failKey(key, wrongType("an array", found));
    return JsonArrayReader(found.toArray(), m_problem, pathOf(key));
}

void JsonReader::failUnknownValue(QStringView key, const QString& text) const {
    failKey(key, QStringLiteral("has an unknown value \"%1\"").arg(text));
}

JsonArrayReader::JsonArrayReader(const QJsonArray& array, std::shared_ptr<JsonProblem> problem,
                                 QString path)
    : m_array(array)
    , m_problem(std::move(problem))
    , m_path(std::move(path)) {}

QString JsonArrayReader::pathAt(qsizetype index) const {
    return m_path + QLatin1Char('[') + QString::number(index) + QLatin1Char(']');
}

JsonReader JsonArrayReader::objectAt(qsizetype index) const {
    const QJsonValue found = m_array.at(index);
    if (!found.isObject())
        record(m_problem.get(), pathAt(index), wrongType("an object", found));
    return JsonReader(found.toObject(), m_problem, pathAt(index));
}

QString JsonArrayReader::stringAt(qsizetype index) const {
    const QJsonValue found = m_array.at(index);
    if (!found.isString()) {
        record(m_problem.get(), pathAt(index), wrongType("a string", found));
        return {};
    }
    return found.toString();
}

int64_t JsonArrayReader::integerAt(qsizetype index, int64_t minimum, int64_t maximum) const {
    return toInteger(
               m_array.at(index), minimum, maximum, [&] { return pathAt(index); }, m_problem.get())
        .value_or(minimum);
}

double JsonArrayReader::numberAt(qsizetype index, double minimum, double maximum) const {
    return toNumber(
               m_array.at(index), minimum, maximum, [&] { return pathAt(index); }, m_problem.get())
        .value_or(minimum);
}

JsonArrayReader JsonArrayReader::arrayAt(qsizetype index) const {
    const QJsonValue found = m_array.at(index);
    if (!found.isArray())
        record(m_problem.get(), pathAt(index), wrongType("an array", found));
    return JsonArrayReader(found.toArray(), m_problem, pathAt(index));
}

} // namespace loadscope::app
