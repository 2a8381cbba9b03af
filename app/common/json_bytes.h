#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace loadscope::app {

// `object` as JSON bytes that Qt reads back to the same object. Qt writes
// U+FEFF raw inside a string but drops it when a string starts with it on
// reading, so a key or a text starting with a byte order mark would change
// on the way: here every U+FEFF is written as the escape "\ufeff". Every
// file and message the project reads back is written through it.
QByteArray jsonBytes(const QJsonObject& object, QJsonDocument::JsonFormat format);

} // namespace loadscope::app
