#pragma once

#include <QString>
#include <QStringList>
#include <QLatin1StringView>
#include <QStringView>
#include <cstdint>
#include <optional>

// The vocabulary of an ApacheBench report, for AbReportParser: the fields ab
// prints above its tables, and the options of the command typed above them.
namespace loadscope::app::ab {

enum class Field {
    ServerSoftware,
    ServerHostname,
    ServerPort,
    TlsProtocol,
    TempKey,
    TlsServerName,
    DocumentPath,
    DocumentLength,
    Concurrency,
    TimeTaken,
    Complete,
    Failed,
    WriteErrors,
    Non2xx,
    KeepAlive,
    TotalTransferred,
    BodySent,
    HtmlTransferred,
    RequestsPerSecond,
    TimePerRequest,
    TransferRate,
};

struct FieldName {
    QLatin1StringView text;
    Field field;
};
// The field a "Name:" line holds, or nullptr for a name ab does not print.
const FieldName* findField(QStringView name);
QString nameOf(Field field);

// What the typed command says that the report does not: -n, -k, -d and the URL.
struct AbOptions {
    std::optional<uint64_t> requests;
    bool keepAlive = false;
    bool noPercentiles = false;
    QString url;
};

AbOptions readOptions(const QStringList& words);

} // namespace loadscope::app::ab
