#include "app/import/decimal_number.h"

#include <QLatin1StringView>
#include <array>
#include <cstdlib>
#include <utility>

namespace loadscope::app {

namespace {

// Splits "549.55MB" into the number and its unit suffix.
std::pair<QStringView, QStringView> splitUnit(QStringView text) {
    qsizetype end = 0;
    while (end < text.size() && (text.at(end).isDigit() || text.at(end) == QLatin1Char('.') ||
                                 (end == 0 && text.at(end) == QLatin1Char('-'))))
        ++end;
    return {text.first(end), text.sliced(end)};
}

struct Unit {
    QLatin1StringView suffix;
    uint64_t factor;
    int powerOfTen;
};

template <size_t N>
std::optional<DecimalNumber> withUnit(QStringView text, const std::array<Unit, N>& units) {
    const auto [number, suffix] = splitUnit(text);
    const auto value = DecimalNumber::parse(number);
    if (!value)
        return std::nullopt;
    for (const Unit& unit : units) {
        if (suffix == unit.suffix)
            return value->scaled(unit.factor, unit.powerOfTen);
    }
    return std::nullopt;
}

} // namespace

std::optional<DecimalNumber> DecimalNumber::parse(QStringView text) {
    DecimalNumber result;
    qsizetype index = 0;
    if (index < text.size() && text.at(index) == QLatin1Char('-')) {
        result.m_negative = true;
        ++index;
    }
    QByteArray digits;
    int integerDigits = 0;
    int fractionDigits = 0;
    bool point = false;
    for (; index < text.size(); ++index) {
        const QChar c = text.at(index);
        if (c == QLatin1Char('.') && !point) {
            point = true;
        } else if (c.isDigit() && c.unicode() < 128) {
            digits.append(static_cast<char>(c.unicode()));
            (point ? fractionDigits : integerDigits)++;
        } else {
            return std::nullopt;
        }
    }
    if (integerDigits == 0 && fractionDigits == 0)
        return std::nullopt;
    if (point && (integerDigits == 0 || fractionDigits == 0))
        return std::nullopt; // ".5" and "5." are not how any of the tools print
    qsizetype firstNonZero = 0;
    while (firstNonZero < digits.size() - 1 && digits.at(firstNonZero) == '0')
        ++firstNonZero;
    result.m_digits = digits.mid(firstNonZero);
    result.m_exponent = -fractionDigits;
    result.m_printedDecimals = fractionDigits;
    if (result.m_digits == "0")
        result.m_negative = false;
    return result;
}

std::optional<double> DecimalNumber::parseDouble(QStringView text) {
    const auto value = parse(text);
    return value ? std::optional<double>(value->toDouble()) : std::nullopt;
}

std::optional<uint64_t> DecimalNumber::parseCount(QStringView text) {
    const auto value = parse(text);
    if (!value || value->isNegative() || value->printedDecimals() > 0)
        return std::nullopt;
    return value->toUInt64();
}

DecimalNumber DecimalNumber::scaled(uint64_t factor, int powerOfTen) const {
    DecimalNumber result = *this;
    result.m_exponent += powerOfTen;
    if (factor == 1)
        return result;
    // Schoolbook multiplication from the last digit; factor < 2^50 keeps
    // digit * factor + carry far below 2^64.
    QByteArray product;
    uint64_t carry = 0;
    for (qsizetype i = m_digits.size() - 1; i >= 0; --i) {
        const uint64_t value = static_cast<uint64_t>(m_digits.at(i) - '0') * factor + carry;
        product.prepend(static_cast<char>('0' + value % 10));
        carry = value / 10;
    }
    while (carry > 0) {
        product.prepend(static_cast<char>('0' + carry % 10));
        carry /= 10;
    }
    qsizetype firstNonZero = 0;
    while (firstNonZero < product.size() - 1 && product.at(firstNonZero) == '0')
        ++firstNonZero;
    result.m_digits = product.mid(firstNonZero);
    return result;
}

double DecimalNumber::toDouble() const {
    // One correctly rounded conversion of the exact decimal value. Beyond the
    // range of a double it is infinite (never 0), so that the range check of
    // the import refuses it; the text has no decimal point, so the C locale
    // does not matter.
    QByteArray text = m_negative ? QByteArrayLiteral("-") : QByteArray();
    text += m_digits + 'e' + QByteArray::number(m_exponent);
    return std::strtod(text.constData(), nullptr);
}

std::optional<uint64_t> DecimalNumber::toUInt64() const {
    if (m_negative)
        return std::nullopt;
    QByteArray integer = m_digits;
    bool roundUp = false;
    if (m_exponent >= 0) {
        integer.append(QByteArray(m_exponent, '0'));
    } else {
        const qsizetype keep = integer.size() + m_exponent;
        roundUp = keep >= 0 && keep < integer.size() && integer.at(keep) >= '5';
        integer = keep > 0 ? integer.left(keep) : QByteArrayLiteral("0");
    }
    if (integer.size() > 20)
        return std::nullopt;
    bool ok = false;
    const qulonglong value = integer.toULongLong(&ok);
    if (!ok || (roundUp && value == ~0ULL))
        return std::nullopt;
    return value + (roundUp ? 1 : 0);
}

std::optional<DecimalNumber> DecimalNumber::wrkTimeMs(QStringView text) {
    static const std::array<Unit, 5> units{{
        {QLatin1StringView("us"), 1, -3},
        {QLatin1StringView("ms"), 1, 0},
        {QLatin1StringView("s"), 1, 3},
        {QLatin1StringView("m"), 60, 3},
        {QLatin1StringView("h"), 3600, 3},
    }};
    return withUnit(text, units);
}

std::optional<DecimalNumber> DecimalNumber::wrkBytes(QStringView text) {
    static const std::array<Unit, 6> units{{
        {QLatin1StringView("B"), 1, 0},
        {QLatin1StringView("KB"), 1024ULL, 0},
        {QLatin1StringView("MB"), 1024ULL * 1024, 0},
        {QLatin1StringView("GB"), 1024ULL * 1024 * 1024, 0},
        {QLatin1StringView("TB"), 1024ULL * 1024 * 1024 * 1024, 0},
        {QLatin1StringView("PB"), 1024ULL * 1024 * 1024 * 1024 * 1024, 0},
    }};
    return withUnit(text, units);
}

std::optional<DecimalNumber> DecimalNumber::wrkCount(QStringView text) {
    static const std::array<Unit, 6> units{{
        {QLatin1StringView(""), 1, 0},
        {QLatin1StringView("k"), 1, 3},
        {QLatin1StringView("M"), 1, 6},
        {QLatin1StringView("G"), 1, 9},
        {QLatin1StringView("T"), 1, 12},
        {QLatin1StringView("P"), 1, 15},
    }};
    return withUnit(text, units);
}

} // namespace loadscope::app
