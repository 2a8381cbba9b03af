#include "app/common/json_bytes.h"

namespace loadscope::app {

QByteArray jsonBytes(const QJsonObject& object, QJsonDocument::JsonFormat format) {
    QByteArray bytes = QJsonDocument(object).toJson(format);
    // Outside strings JSON is ASCII: the raw mark can only be in a string.
    static constexpr char kByteOrderMark[] = "\xEF\xBB\xBF";
    if (bytes.contains(kByteOrderMark))
        bytes.replace(kByteOrderMark, "\\ufeff");
    return bytes;
}

} // namespace loadscope::app
