// Feeds arbitrary bytes to every import parser (ab, wrk, wrk2,
// memtier_benchmark text and JSON, netperf), as `loadscope-cli import` does.
// Besides the sanitizers' checks it asserts that an import is refused with
// one line, or gives a session that saves and opens again with nothing set
// aside: no imported figure can lock a session.

#include "app/import/report_importer.h"
#include "app/import/session_importer.h"
#include "app/session/session_file.h"

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace loadscope::app;

namespace {

void requireOneLine(const Error& error) {
    if (error.message.isEmpty() || error.message.contains(QLatin1Char('\n'))) {
        std::fprintf(stderr, "refusal is not one line: %s\n", qPrintable(error.message));
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QString name = QStringLiteral("fuzz.txt");
    const ImportResult reports = importReports(name, bytes);
    if (!reports) {
        requireOneLine(reports.error());
        return 0;
    }
    Session session;
    const auto imported = importIntoSession(session, QStringLiteral("target"), {}, {{name, bytes}});
    if (!imported) {
        requireOneLine(imported.error());
        if (!session.results.empty() || !session.targets.empty()) {
            std::fprintf(stderr, "a refused import changed the session\n");
            std::abort();
        }
        return 0;
    }
    const Result<Session> reopened =
        parseSession(serializeSession(session), QStringLiteral("fuzz.loadscope"));
    if (!reopened || !reopened->setAside.empty() ||
        reopened->results.size() != session.results.size()) {
        std::fprintf(stderr, "an imported session does not open whole: %s\n",
                     reopened ? qPrintable(reopened->setAside.front().problem)
                              : qPrintable(reopened.error().toString()));
        std::abort();
    }
    return 0;
}
