#include "app/import/ab_report_fields.h"

#include "app/import/decimal_number.h"

#include <array>

namespace loadscope::app::ab {

// In the order ab prints them: a name that goes backwards begins the next report.
constexpr std::array<FieldName, 22> kFieldNames{{
    {QLatin1StringView("Server Software"), Field::ServerSoftware},
    {QLatin1StringView("Server Hostname"), Field::ServerHostname},
    {QLatin1StringView("Server Port"), Field::ServerPort},
    {QLatin1StringView("SSL/TLS Protocol"), Field::TlsProtocol},
    {QLatin1StringView("Server Temp Key"), Field::TempKey},
    {QLatin1StringView("TLS Server Name"), Field::TlsServerName},
    {QLatin1StringView("Document Path"), Field::DocumentPath},
    {QLatin1StringView("Document Length"), Field::DocumentLength},
    {QLatin1StringView("Concurrency Level"), Field::Concurrency},
    {QLatin1StringView("Time taken for tests"), Field::TimeTaken},
    {QLatin1StringView("Complete requests"), Field::Complete},
    {QLatin1StringView("Failed requests"), Field::Failed},
    {QLatin1StringView("Write errors"), Field::WriteErrors},
    {QLatin1StringView("Non-2xx responses"), Field::Non2xx},
    {QLatin1StringView("Keep-Alive requests"), Field::KeepAlive},
    {QLatin1StringView("Total transferred"), Field::TotalTransferred},
    {QLatin1StringView("Total body sent"), Field::BodySent},
    {QLatin1StringView("Total POSTed"), Field::BodySent}, // the 2.0.40 name
    {QLatin1StringView("HTML transferred"), Field::HtmlTransferred},
    {QLatin1StringView("Requests per second"), Field::RequestsPerSecond},
    {QLatin1StringView("Time per request"), Field::TimePerRequest},
    {QLatin1StringView("Transfer rate"), Field::TransferRate},
}};

const FieldName* findField(QStringView name) {
    for (const FieldName& candidate : kFieldNames) {
        if (name == candidate.text)
            return &candidate;
    }
    return nullptr;
}

QString nameOf(Field field) {
    for (const FieldName& candidate : kFieldNames) {
        if (candidate.field == field)
            return QString(candidate.text);
    }
    return {};
}

AbOptions readOptions(const QStringList& words) {
    static const QString withValue = QStringLiteral("ncstbTpuvxyzCHPAgXeBmZfE");
    AbOptions options;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString& word = words.at(i);
        if (word.size() < 2 || !word.startsWith(QLatin1Char('-'))) {
            options.url = word;
            continue;
        }
        for (qsizetype c = 1; c < word.size(); ++c) {
            const QChar flag = word.at(c);
            if (withValue.contains(flag)) {
                const QString value = c + 1 < word.size() ? word.mid(c + 1) : words.value(++i);
                if (flag == QLatin1Char('n'))
                    options.requests = DecimalNumber::parseCount(value);
                break;
            }
            if (flag == QLatin1Char('k'))
                options.keepAlive = true;
            else if (flag == QLatin1Char('d'))
                options.noPercentiles = true;
        }
    }
    return options;
}

} // namespace loadscope::app::ab
