#pragma once

// Response bytes for the HTTP parser and session suites.
#include <QByteArray>
#include <string_view>

namespace loadscope::engine::test {

inline std::string_view view(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<size_t>(bytes.size())};
}

// A response with `body` and its Content-Length, `extra` header lines before the blank line.
inline QByteArray withContentLength(int status, const QByteArray& body,
                                    const QByteArray& extra = {}) {
    return "HTTP/1.1 " + QByteArray::number(status) +
           " X\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n" + extra + "\r\n" +
           body;
}

} // namespace loadscope::engine::test
