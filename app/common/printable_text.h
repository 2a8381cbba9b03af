#pragma once

#include <QString>
#include <string_view>

// Text a server chose (a Server header, a status reason, a memcached error
// line) or a user typed, made safe to print on a terminal or show in the
// window: every control character (C0, DEL and C1, CR, LF and NUL among them)
// is written as a visible escape, "\x1B" or "\u009B", so that nothing the
// server sends can move the cursor, retitle the terminal or hide a line.
// Every report and error line that can hold such text goes through it.
namespace loadscope::app {

QString printableText(const QString& text);
// Bytes off the wire: UTF-8 where they are, U+FFFD where they are not.
QString printableText(std::string_view bytes);

} // namespace loadscope::app
