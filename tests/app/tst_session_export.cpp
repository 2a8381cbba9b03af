// CSV and percentile-distribution exports, read back the way a spreadsheet
// or a plotting script would.
#include "app/session/csv_export.h"
#include "app/session/folded_export.h"
#include "app/session/percentile_export.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <clocale>
#include <cmath>
#include <map>

using namespace loadscope;
using namespace loadscope::app;

namespace {

using CsvTable = std::vector<QStringList>;

// A strict RFC 4180 reader: records end in CRLF, quoted fields may hold
// commas, doubled quotes and line breaks, a bare CR or LF outside quotes is
// an error (reported through `error`).
CsvTable readCsv(const QByteArray& bytes, QString* error) {
    const QString text = QString::fromUtf8(bytes);
    CsvTable table;
    QStringList record;
    QString field;
    bool quoted = false;
    bool fieldWasQuoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"')) {
            if (!field.isEmpty() || fieldWasQuoted) {
                *error = QStringLiteral("quote inside an unquoted field at %1").arg(i);
                return {};
            }
            quoted = true;
            fieldWasQuoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
            fieldWasQuoted = false;
        } else if (c == QLatin1Char('\r')) {
            if (i + 1 >= text.size() || text.at(i + 1) != QLatin1Char('\n')) {
                *error = QStringLiteral("bare CR at %1").arg(i);
                return {};
            }
            ++i;
            record << field;
            table.push_back(record);
            record.clear();
            field.clear();
            fieldWasQuoted = false;
        } else if (c == QLatin1Char('\n')) {
            *error = QStringLiteral("bare LF at %1").arg(i);
            return {};
        } else {
            field += c;
        }
    }
    if (quoted || !field.isEmpty() || !record.isEmpty())
        *error = QStringLiteral("the last record does not end in CRLF");
    return table;
}

// Rows as maps from column name to field.
std::vector<std::map<QString, QString>> records(const CsvTable& table) {
    std::vector<std::map<QString, QString>> out;
    for (size_t r = 1; r < table.size(); ++r) {
        std::map<QString, QString> row;
        for (qsizetype c = 0; c < table[0].size(); ++c)
            row[table[0][c]] = table[r].value(c);
        out.push_back(row);
    }
    return out;
}

QString optionalText(const std::optional<double>& value) {
    return value ? csvNumber(*value) : QString();
}

Session trickySession() {
    Session session = test::twoTargetSession();
    session.targets[0].name = QStringLiteral("host, \"bare\"\nmetal");
    session.targets[1].customMode = QStringLiteral("NAT (Docker 24, ünïcode)");
    session.targets[1].mode = DeploymentMode::Custom;
    Target imported = test::httpTarget(QStringLiteral("ab"), DeploymentMode::Macvlan, 80, 2);
    session.targets.push_back(imported);
    session.results.push_back(test::importedResult(imported.id, 10, 0, 987.25, 3.5));
    session.results.front().firstError = QStringLiteral("connection reset, \"peer\"\r\nclosed");
    return session;
}

} // namespace

class TestSessionExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void csvField_data();
    void csvField();
    void csvNumbers_data();
    void csvNumbers();
    void resultsCsvReadsBack();
    void summaryCsvReadsBack();
    void csvsCarryTheNetworkCounters();
    void percentileLayout();
    void percentileFilesPerTargetAndLevel();
    void foldedStacksPerTargetAndLevel();
};

void TestSessionExport::initTestCase() {
    // A decimal comma in the process locale must not leak into any export.
    std::setlocale(LC_ALL, "de_DE.UTF-8");
}

void TestSessionExport::csvField_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QStringLiteral("host") << QStringLiteral("host");
    QTest::newRow("empty") << QString() << QString();
    QTest::newRow("comma") << QStringLiteral("a,b") << QStringLiteral("\"a,b\"");
    QTest::newRow("quote") << QStringLiteral("say \"hi\"") << QStringLiteral("\"say \"\"hi\"\"\"");
    QTest::newRow("newline") << QStringLiteral("a\nb") << QStringLiteral("\"a\nb\"");
    QTest::newRow("carriage return") << QStringLiteral("a\rb") << QStringLiteral("\"a\rb\"");
    QTest::newRow("spaces kept") << QStringLiteral(" a ") << QStringLiteral(" a ");
    QTest::newRow("unicode") << QStringLiteral("ünï") << QStringLiteral("ünï");
}

void TestSessionExport::csvField() {
    QFETCH(QString, field);
    QFETCH(QString, expected);
    QCOMPARE(app::csvField(field), expected);
}

void TestSessionExport::csvNumbers_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("integer") << 1100.0 << QStringLiteral("1100");
    QTest::newRow("fraction") << 0.1 << QStringLiteral("0.1");
    QTest::newRow("small") << 0.000125 << QStringLiteral("0.000125");
    QTest::newRow("negative") << -13.636363636363637 << QStringLiteral("-13.636363636363637");
    QTest::newRow("negative zero") << -0.0 << QStringLiteral("0");
    QTest::newRow("large") << 1e21 << QStringLiteral("1000000000000000000000");
    QTest::newRow("nan") << std::nan("") << QString();
}

void TestSessionExport::csvNumbers() {
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(csvNumber(value), expected);
}

void TestSessionExport::resultsCsvReadsBack() {
    const Session session = trickySession();
    const QByteArray csv = resultsCsv(session);
    QString error;
    const CsvTable table = readCsv(csv, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(table.at(0), resultsCsvColumns());
    QVERIFY(table.at(0).contains(QStringLiteral("latency_p99_9_ms")));
    QVERIFY(table.at(0).contains(QStringLiteral("failed_connect")));
    for (const QStringList& row : table)
        QCOMPARE(row.size(), table.at(0).size());

    const auto rows = records(table);
    QCOMPARE(rows.size(), session.results.size());
    // Targets in session order, then concurrency and repetition.
    QCOMPARE(rows.front().at(QStringLiteral("target")), session.targets[0].name);
    QCOMPARE(rows.back().at(QStringLiteral("target")), QStringLiteral("ab"));
    QCOMPARE(rows[0].at(QStringLiteral("repetition")), QStringLiteral("0"));
    QCOMPARE(rows[1].at(QStringLiteral("repetition")), QStringLiteral("1"));
    QCOMPARE(rows[3].at(QStringLiteral("concurrency")), QStringLiteral("10"));

    for (const auto& row : rows) {
        const QUuid target = QUuid::fromString(row.at(QStringLiteral("target_id")));
        const PointResult* result =
            session.findResult(target, row.at(QStringLiteral("concurrency")).toInt(),
                               row.at(QStringLiteral("repetition")).toInt());
        QVERIFY(result);
        const Target* owner = session.findTarget(target);
        QCOMPARE(row.at(QStringLiteral("target")), owner->displayName());
        QCOMPARE(row.at(QStringLiteral("mode")), owner->modeLabel());
        QCOMPARE(row.at(QStringLiteral("complete")).toULongLong(), result->complete);
        QCOMPARE(row.at(QStringLiteral("failed")).toULongLong(), result->failed);
        QCOMPARE(row.at(QStringLiteral("bytes_total")).toULongLong(), result->bytesTotal);
        QCOMPARE(row.at(QStringLiteral("first_error")), result->firstError);
        QCOMPARE(row.at(QStringLiteral("source")),
                 result->source.kind == ResultSource::Kind::Imported ? QStringLiteral("imported")
                                                                     : QStringLiteral("measured"));
        // Shortest round-trip numbers: the doubles read back exactly.
        QCOMPARE(row.at(QStringLiteral("requests_per_second")).toDouble(),
                 *metricValue(*result, Metric::RequestsPerSecond));
        QCOMPARE(row.at(QStringLiteral("transfer_rate_kib_s")).toDouble(),
                 *metricValue(*result, Metric::TransferRate));
        QCOMPARE(row.at(QStringLiteral("time_per_request_ms")).toDouble(),
                 result->timePerRequestMs());
        QCOMPARE(row.at(QStringLiteral("latency_mean_ms")), optionalText(result->total.meanMs));
        QCOMPARE(row.at(QStringLiteral("latency_p50_ms")),
                 optionalText(result->total.percentile(50)));
        QCOMPARE(row.at(QStringLiteral("latency_p99_ms")),
                 optionalText(result->total.percentile(99)));
        QCOMPARE(row.at(QStringLiteral("latency_p99_9_ms")),
                 optionalText(result->total.percentile(99.9)));
        QCOMPARE(row.at(QStringLiteral("latency_p100_ms")),
                 optionalText(result->total.percentile(100)));
        QCOMPARE(row.at(QStringLiteral("connect_mean_ms")), optionalText(result->connect.meanMs));
    }
    // The imported report printed no p90: the field is empty, not zero.
    QCOMPARE(rows.back().at(QStringLiteral("latency_p90_ms")), QString());
    QCOMPARE(rows.back().at(QStringLiteral("latency_p99_ms")), QStringLiteral("3.5"));
    QVERIFY(csv.contains("\"host, \"\"bare\"\"\nmetal\""));
}

void TestSessionExport::summaryCsvReadsBack() {
    const Session session = trickySession();
    const Comparison comparison(session);
    QString error;
    const CsvTable table = readCsv(summaryCsv(session, comparison), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(table.at(0), summaryCsvColumns());
    const auto rows = records(table);
    QCOMPARE(rows.size(), comparison.rows().size());

    for (size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        const ComparisonRow& expected = comparison.rows()[i];
        QCOMPARE(QUuid::fromString(row.at(QStringLiteral("target_id"))), expected.targetId);
        QCOMPARE(row.at(QStringLiteral("concurrency")).toInt(), expected.concurrency);
        QCOMPARE(metricFromId(row.at(QStringLiteral("metric"))), std::optional(expected.metric));
        QCOMPARE(row.at(QStringLiteral("n")).toInt(), expected.statistics.n);
        QCOMPARE(row.at(QStringLiteral("mean")).toDouble(), expected.statistics.mean);
        QCOMPARE(row.at(QStringLiteral("sd")), optionalText(expected.statistics.sd));
        QCOMPARE(row.at(QStringLiteral("ci95_low")), optionalText(expected.statistics.ci95Low));
        QCOMPARE(row.at(QStringLiteral("ci95_high")), optionalText(expected.statistics.ci95High));
        QCOMPARE(row.at(QStringLiteral("vs_baseline_percent")),
                 optionalText(expected.vsBaselinePercent));
        QCOMPARE(row.at(QStringLiteral("verdict")), verdictId(expected.verdict));
    }

    // The hand-checked cell: NAT at c=10, requests/s.
    const QUuid nat = session.targets[1].id;
    const auto natRps = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
        return QUuid::fromString(row.at(QStringLiteral("target_id"))) == nat &&
               row.at(QStringLiteral("concurrency")) == u"10" &&
               row.at(QStringLiteral("metric")) == u"requests_per_second";
    });
    QVERIFY(natRps != rows.end());
    QCOMPARE(natRps->at(QStringLiteral("mean")), QStringLiteral("950"));
    QCOMPARE(natRps->at(QStringLiteral("sd")), QStringLiteral("50"));
    QCOMPARE(natRps->at(QStringLiteral("unit")), QStringLiteral("req/s"));
    QCOMPARE(natRps->at(QStringLiteral("mode")), QStringLiteral("NAT (Docker 24, ünïcode)"));
    // Paired by repetition (interleaved): the geometric mean of the ratios
    // 0.9, 0.8636, 0.8333, whose interval excludes 0% (tst_paired_comparison).
    QCOMPARE(natRps->at(QStringLiteral("significant")), QStringLiteral("true"));
    QCOMPARE(natRps->at(QStringLiteral("verdict")), QStringLiteral("significant"));
    QVERIFY(std::fabs(natRps->at(QStringLiteral("vs_baseline_percent")).toDouble() -
                      -13.477167633015341) < 1e-9);

    const auto importedRps = std::find_if(rows.begin(), rows.end(), [](const auto& row) {
        return row.at(QStringLiteral("target")) == u"ab" &&
               row.at(QStringLiteral("metric")) == u"requests_per_second";
    });
    QVERIFY(importedRps != rows.end());
    QCOMPARE(importedRps->at(QStringLiteral("n")), QStringLiteral("1"));
    QCOMPARE(importedRps->at(QStringLiteral("sd")), QString());
    QCOMPARE(importedRps->at(QStringLiteral("ci95_low")), QString());
    QCOMPARE(importedRps->at(QStringLiteral("significant")), QString());
    QCOMPARE(importedRps->at(QStringLiteral("verdict")), QStringLiteral("n/a"));
    QCOMPARE(importedRps->at(QStringLiteral("imported")), QStringLiteral("true"));
}

// A point whose network stack lost packets: its counters are results-CSV columns, empty for a
// point without them; each summary row counts the repetitions so marked and quotes the first.
void TestSessionExport::csvsCarryTheNetworkCounters() {
    Session session = test::twoTargetRates({100, 101, 99}, {90, 91, 89}, 1'000'000);
    const auto lost = [](uint64_t retransmits, uint64_t conntrackDrops) {
        NamespaceCounters host;
        host.roles = {QStringLiteral("server host")};
        host.netns = 4026532301;
        host.conntrack = true;
        host.tcpRetransmits = retransmits;
        host.conntrackDrop = conntrackDrops;
        NamespaceCounters machine;
        machine.roles = {QStringLiteral("machine")};
        machine.tcpRetransmits = 1000; // not the point's
        return NetCounterWindow{{host, machine}, SoftnetCounts{0, 3}};
    };
    session.results[3].net = lost(5, 0);   // container-nat, repetition 0
    session.results[4].net = lost(0, 0);   // measured, nothing lost
    session.results[5].net = lost(0, 312); // repetition 2
    QString error;
    const CsvTable results = readCsv(resultsCsv(session), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const auto resultRows = records(results);
    QCOMPARE(resultRows[0].at(QStringLiteral("net_tcp_retransmits")), QString());
    QCOMPARE(resultRows[3].at(QStringLiteral("net_tcp_retransmits")), QStringLiteral("5"));
    QCOMPARE(resultRows[4].at(QStringLiteral("net_tcp_retransmits")), QStringLiteral("0"));
    QCOMPARE(resultRows[5].at(QStringLiteral("net_conntrack_drop")), QStringLiteral("312"));
    QCOMPARE(resultRows[5].at(QStringLiteral("net_softnet_time_squeeze")), QStringLiteral("3"));
    QCOMPARE(resultRows[5].at(QStringLiteral("net_notes")),
             QStringLiteral("conntrack dropped 312 packets (server host): its table was full "
                            "(nf_conntrack_max)"));

    const Comparison comparison(session);
    const CsvTable summary = readCsv(summaryCsv(session, comparison), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(summary.at(0).mid(summary.at(0).size() - 2),
             (QStringList{QStringLiteral("net_marked"), QStringLiteral("net_note")}));
    for (const auto& row : records(summary)) {
        const bool nat = row.at(QStringLiteral("target")) == u"container-nat";
        QCOMPARE(row.at(QStringLiteral("net_marked")),
                 nat ? QStringLiteral("2") : QStringLiteral("0"));
        QCOMPARE(row.at(QStringLiteral("net_note")),
                 nat ? QStringLiteral("5 TCP segments retransmitted (server host)") : QString());
    }
}

void TestSessionExport::percentileLayout() {
    engine::Histogram histogram;
    histogram.recordN(1'000'000, 900); // 1 ms
    histogram.recordN(5'000'000, 90);
    histogram.recordN(40'000'000, 10);
    const QString text = QString::fromLatin1(percentileDistributionText(histogram));
    QStringList lines = text.split(QLatin1Char('\n'));
    QCOMPARE(lines.takeLast(), QString()); // ends with a newline
    QCOMPARE(lines.at(0),
             QStringLiteral("       Value     Percentile TotalCount 1/(1-Percentile)"));
    QCOMPARE(lines.at(1), QString());
    QCOMPARE(lines.at(lines.size() - 2),
             QStringLiteral("#[Mean    = %1, StdDeviation   = %2]")
                 .arg(QString::asprintf("%12.3f", histogram.mean() / 1e6),
                      QString::asprintf("%12.3f", histogram.stddev() / 1e6)));
    QCOMPARE(lines.last(),
             QStringLiteral("#[Max     =       40.000, Total count    =         1000]"));

    static const QRegularExpression row(
        QStringLiteral("^ *(\\d+\\.\\d{3}) (\\d\\.\\d{12}) +(\\d+) +(\\d+\\.\\d{2})$"));
    static const QRegularExpression lastRow(
        QStringLiteral("^ *(\\d+\\.\\d{3}) 1\\.0{12} +(\\d+)$"));
    const QStringList data = lines.mid(2, lines.size() - 4);
    QVERIFY(data.size() > 5);
    double previousValue = 0;
    qulonglong previousCount = 0;
    for (qsizetype i = 0; i + 1 < data.size(); ++i) {
        const auto match = row.match(data[i]);
        QVERIFY2(match.hasMatch(), qPrintable(data[i]));
        const double value = match.captured(1).toDouble();
        const double fraction = match.captured(2).toDouble();
        const qulonglong count = match.captured(3).toULongLong();
        QVERIFY(value >= previousValue && count >= previousCount);
        QVERIFY(qAbs(match.captured(4).toDouble() - 1.0 / (1.0 - fraction)) < 0.01);
        previousValue = value;
        previousCount = count;
    }
    const auto last = lastRow.match(data.last());
    QVERIFY2(last.hasMatch(), qPrintable(data.last()));
    QVERIFY(qAbs(last.captured(1).toDouble() - 40.0) < 40.0 / 1000);
    QCOMPARE(last.captured(2), QStringLiteral("1000"));
    // Value column: 12 wide, as HdrHistogram prints it.
    QCOMPARE(data.first().indexOf(QLatin1Char('.')), 8);
}

void TestSessionExport::percentileFilesPerTargetAndLevel() {
    Session session = trickySession();
    session.targets[1].name = session.targets[0].name; // same file name stem
    const auto files = percentileDistributionFiles(session);
    QCOMPARE(files.size(), size_t(4)); // 2 measured targets x 2 levels; the import has none
    QCOMPARE(files[0].fileName, QStringLiteral("host-bare-metal_c1.hgrm"));
    QCOMPARE(files[1].fileName, QStringLiteral("host-bare-metal_c10.hgrm"));
    QCOMPARE(files[2].fileName, QStringLiteral("host-bare-metal-2_c1.hgrm"));
    for (const auto& file : files) {
        QCOMPARE(file.results, 3);
        // Three repetitions of 100 requests merged.
        QVERIFY2(file.text.contains("Total count    =          300]"), file.text.constData());
    }

    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("out/hgrm"));
    const auto written = writePercentileDistributions(session, target);
    QVERIFY2(written, written ? "" : qPrintable(written.error().toString()));
    QCOMPARE(written->size(), 4);
    QFile first(QDir(target).filePath(files[0].fileName));
    QVERIFY(first.open(QIODevice::ReadOnly));
    QCOMPARE(first.readAll(), files[0].text);

    // A file where the directory should be: one clear line.
    const QString blocked = dir.filePath(QStringLiteral("blocked"));
    QFile blocker(blocked);
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const auto refused = writePercentileDistributions(session, blocked);
    QVERIFY(!refused);
    const QString error = refused.error().toString();
    QVERIFY2(error.startsWith(blocked), qPrintable(error));
}

// The profiles' call chains, one file per target and level: each
// repetition's kept chains merged (the same chain's samples added), most
// samples first, "frames samples" a line; results without a profile give none.
void TestSessionExport::foldedStacksPerTargetAndLevel() {
    Session session = trickySession();
    const QUuid host = session.targets[0].id;
    int profiled = 0;
    for (PointResult& r : session.results) {
        if (r.targetId != host || r.concurrency != 10)
            continue;
        CpuProfileSummary p;
        p.cpus = 2;
        p.periodUs = 1000;
        p.samples = 100;
        p.stacks = {{QStringLiteral("nginx [server];[nginx];tcp_sendmsg"), 30},
                    {QStringLiteral("nginx [server];[nginx]"), uint64_t(10 + r.repetition)}};
        r.profile = p;
        ++profiled;
    }
    QCOMPARE(profiled, 3);
    const auto files = foldedStacksFiles(session);
    QCOMPARE(files.size(), size_t(1));
    QCOMPARE(files[0].fileName, QStringLiteral("host-bare-metal_c10.folded"));
    QCOMPARE(files[0].results, 3);
    QCOMPARE(files[0].text, QByteArray("nginx [server];[nginx];tcp_sendmsg 90\n"
                                       "nginx [server];[nginx] 33\n"));
    QTemporaryDir dir;
    const auto written = writeFoldedStacks(session, dir.filePath(QStringLiteral("folded")));
    QVERIFY2(written, written ? "" : qPrintable(written.error().toString()));
    QCOMPARE(written->size(), 1);
    QFile file(written->front());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), files[0].text);
}

QTEST_GUILESS_MAIN(TestSessionExport)
#include "tst_session_export.moc"
