#pragma once

#include <QByteArray>
#include <QString>

namespace loadscope::app {

// Where a byte offset of a JSON text is, as a reader of the file looks for it:
// "line 12, column 5, in targets[1].http" (the field is left out at the top
// level). Used to place a syntax error, which a parser reports as an offset.
QString jsonLocation(const QByteArray& text, qsizetype offset);

} // namespace loadscope::app
