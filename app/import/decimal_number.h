#pragma once

#include <QByteArray>
#include <QStringView>
#include <cstdint>
#include <optional>

namespace loadscope::app {

// A number exactly as a tool printed it ("549.55", "0.014"), kept as decimal
// digits so that unit conversions (549.55 MB -> bytes, 540.00 us -> ms) are
// done exactly and rounded to a double only once. 18672.41 imports as the
// double nearest to 18672.41, never as 18672.409999 from a chain of float math.
class DecimalNumber {
public:
    // Plain decimal notation: optional '-', digits, optional '.' and digits.
    // Anything else (exponents, thousands separators, "nan", a lone '.') is refused.
    static std::optional<DecimalNumber> parse(QStringView text);
    // Shorthands for the common cases: a plain decimal as a double, and a
    // whole non-negative count without a decimal point.
    static std::optional<double> parseDouble(QStringView text);
    static std::optional<uint64_t> parseCount(QStringView text);

    // This value times `factor` times 10^`powerOfTen`, exactly.
    DecimalNumber scaled(uint64_t factor, int powerOfTen = 0) const;
    // This value divided by a power of ten, exactly.
    DecimalNumber shifted(int powerOfTen) const { return scaled(1, powerOfTen); }

    // The nearest double; infinite when the value is beyond a double's range.
    double toDouble() const;
    // Rounded half up; nullopt when negative or too large.
    std::optional<uint64_t> toUInt64() const;
    bool isNegative() const { return m_negative; }
    // Digits after the point as printed ("0.50" has 2): some parsers check a
    // column's fixed precision to notice a number cut short.
    int printedDecimals() const { return m_printedDecimals; }

    // Units of the tools' outputs, converted exactly. nullopt for an unknown
    // unit or a malformed number.
    //
    // wrk time ("540.00us", "1.23ms", "2.34s", "1.50m", "2.00h") in milliseconds.
    static std::optional<DecimalNumber> wrkTimeMs(QStringView text);
    // wrk binary size ("512.00B", "549.55MB", "1.2GB"; 1 KB = 1024 B) in bytes.
    static std::optional<DecimalNumber> wrkBytes(QStringView text);
    // wrk metric count ("890.00", "10.5k", "1.20M"; 1 k = 1000).
    static std::optional<DecimalNumber> wrkCount(QStringView text);

private:
    DecimalNumber() = default;

    bool m_negative = false;
    QByteArray m_digits = QByteArrayLiteral("0"); // no leading zeros except "0"
    int m_exponent = 0;                           // value = digits x 10^exponent
    int m_printedDecimals = 0;
};

} // namespace loadscope::app
