#include "app/common/printable_text.h"

#include <algorithm>

namespace loadscope::app {

namespace {

bool isControl(char16_t u) {
    return u < 0x20 || (u >= 0x7f && u <= 0x9f);
}

// Upper-case hex as C and Python write escapes: "\x1B".
QString hexDigits(char16_t u, int digits) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    QString out;
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        out += QLatin1Char(kHex[(u >> shift) & 0xf]);
    return out;
}

} // namespace

QString printableText(const QString& text) {
    if (std::none_of(text.begin(), text.end(), [](QChar c) { return isControl(c.unicode()); }))
        return text;
    QString out;
    out.reserve(text.size() + 8);
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (!isControl(u))
            out += c;
        else if (u < 0x80)
            out += QLatin1String("\\x") + hexDigits(u, 2);
        else
            out += QLatin1String("\\u") + hexDigits(u, 4);
    }
    return out;
}

QString printableText(std::string_view bytes) {
    return printableText(QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
}

} // namespace loadscope::app
