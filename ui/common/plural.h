#pragma once

#include <QString>

namespace loadscope::ui {

// "1 target" / "3 targets": the application ships no translation files, so
// tr()'s "%n target(s)" would show its parentheses. `many` holds %1.
inline QString plural(qsizetype count, const QString& one, const QString& many) {
    return count == 1 ? one : many.arg(count);
}

} // namespace loadscope::ui
