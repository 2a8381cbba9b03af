// Feeds arbitrary bytes to the session file reader, as opening a file does.
// Besides the sanitizers' checks it asserts what the reader promises: a
// session it accepts (its broken results set aside) saves to bytes that open
// again to the same session, and save -> open -> save gives the same bytes.
// And the reader's fast path (each result parsed apart, session_file_split.h)
// agrees with the whole-file way: what one accepts the other accepts, and as
// the same session.

#include "app/session/session_file.h"
#include "app/session/session_json.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace loadscope::app;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QString name = QStringLiteral("fuzz.loadscope");
    const Result<Session> opened = parseSession(bytes, name);
    const QJsonDocument document = QJsonDocument::fromJson(bytes);
    const Result<Session> whole =
        document.isObject() ? sessionFromJson(document.object()) : Result<Session>(Error{});
    if (opened.ok() != whole.ok() || (opened.ok() && !(*opened == *whole))) {
        std::fprintf(stderr, "the split reading and the whole-file reading disagree\n");
        std::abort();
    }
    if (!opened) {
        if (opened.error().message.isEmpty() ||
            opened.error().message.contains(QLatin1Char('\n'))) {
            std::fprintf(stderr, "refusal is not one line: %s\n",
                         qPrintable(opened.error().message));
            std::abort();
        }
        return 0;
    }
    const QByteArray saved = serializeSession(*opened);
    const Result<Session> reopened = parseSession(saved, name);
    if (!reopened) {
        std::fprintf(stderr, "a saved session does not open: %s\n",
                     qPrintable(reopened.error().toString()));
        std::abort();
    }
    if (reopened->results.size() != opened->results.size() ||
        reopened->setAside.size() != opened->setAside.size() ||
        serializeSession(*reopened) != saved) {
        std::fprintf(stderr, "save -> open -> save changed the session\n");
        std::abort();
    }
    return 0;
}
