// loadscope-cli http --h2 against nginx-light: the report says HTTP/2 and the
// concurrency as connections x streams, the counts and body bytes are exact
// for a document of known size, the CSV carries the HTTP/2 failure classes,
// an https server that does not agree to h2 is one clear counted error, and
// the HTTP/2 options are refused with one line where they make no sense.
#include "cli_process.h"
#include "local_peers.h"
#include "tsan_fork_options.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::CliOutcome;
using loadscope::testing::NginxPeer;
using loadscope::testing::runCli;

namespace {

constexpr qsizetype kDocumentBytes = 4897;

// The CSV's first data row as column -> value.
QMap<QByteArray, QByteArray> csvRow(const QString& path) {
    QFile file(path);
    QMap<QByteArray, QByteArray> row;
    if (!file.open(QIODevice::ReadOnly))
        return row;
    const QList<QByteArray> lines = file.readAll().split('\n');
    if (lines.size() < 2)
        return row;
    const QList<QByteArray> names = lines.at(0).trimmed().split(',');
    const QList<QByteArray> values = lines.at(1).trimmed().split(',');
    for (qsizetype i = 0; i < names.size() && i < values.size(); ++i)
        row.insert(names.at(i), values.at(i));
    return row;
}

} // namespace

class TestHttp2Cli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reportAndCsv_data() {
        QTest::addColumn<bool>("tls");
        QTest::newRow("h2c") << false;
        QTest::newRow("h2 over TLS") << true;
    }

    void reportAndCsv() {
        QFETCH(bool, tls);
        NginxPeer nginx(kDocumentBytes, tls ? NginxPeer::Scheme::Https : NginxPeer::Scheme::Http,
                        true);
        if (!nginx.isRunning())
            QSKIP(qPrintable(nginx.error()));
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("run.csv"));
        QStringList arguments{QStringLiteral("http"),
                              QStringLiteral("--h2"),
                              QStringLiteral("--max-concurrent-streams"),
                              QStringLiteral("8"),
                              QStringLiteral("-c"),
                              QStringLiteral("2"),
                              QStringLiteral("-n"),
                              QStringLiteral("400"),
                              QStringLiteral("--csv"),
                              csv};
        if (tls)
            arguments << QStringLiteral("--cacert") << nginx.certificatePath();
        const CliOutcome ours = runCli(arguments << nginx.url());
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        const QStringList lines{
            tls ? QStringLiteral("HTTP version sent:      HTTP/2 (h2, by ALPN)")
                : QStringLiteral("HTTP version sent:      HTTP/2 (h2c, prior knowledge)"),
            QStringLiteral("Concurrency Level:      16 (2 connections x 8 streams)"),
            QStringLiteral("Complete requests:      400"),
            QStringLiteral("Failed requests:        0"),
            QStringLiteral("HTML transferred:       1958800 bytes")};
        for (const QString& line : lines)
            QVERIFY2(text.contains(line), qPrintable(line + QStringLiteral("\n") + text));
        const auto row = csvRow(csv);
        QCOMPARE(row.value("complete"), QByteArray("400"));
        QCOMPARE(row.value("bytes_body"), QByteArray("1958800"));
        QCOMPARE(row.value("failed_rst_stream"), QByteArray("0"));
        QCOMPARE(row.value("failed_goaway"), QByteArray("0"));
    }

    void alpnRefusalIsOneCountedLine() {
        NginxPeer nginx(kDocumentBytes, NginxPeer::Scheme::Https); // HTTP/1.1 only
        if (!nginx.isRunning())
            QSKIP(qPrintable(nginx.error()));
        const CliOutcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("--h2"), QStringLiteral("--insecure"),
                    QStringLiteral("-n"), QStringLiteral("3"), nginx.url()});
        const QString text = QString::fromUtf8(ours.out + ours.err);
        QVERIFY2(text.contains(QStringLiteral("Failed requests:        3")), qPrintable(text));
        QStringList firstErrors;
        for (const QString& line : text.split(QLatin1Char('\n')))
            if (line.contains(QStringLiteral("First error")))
                firstErrors << line;
        QCOMPARE(firstErrors.size(), 1);
        QVERIFY2(firstErrors.first().contains(QStringLiteral("ALPN")) ||
                     firstErrors.first().contains(QStringLiteral("application protocol")),
                 qPrintable(firstErrors.first()));
    }

    void badArgumentsGiveOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString url = QStringLiteral("http://127.0.0.1/");
        QTest::newRow("streams without --h2")
            << QStringList{QStringLiteral("--max-concurrent-streams"), QStringLiteral("4"), url}
            << QStringLiteral("--h2");
        QTest::newRow("window without --h2")
            << QStringList{QStringLiteral("--connection-window-bits"), QStringLiteral("20"), url}
            << QStringLiteral("--h2");
        QTest::newRow("pipelining with --h2")
            << QStringList{QStringLiteral("--h2"), QStringLiteral("-k"),
                           QStringLiteral("--pipeline"), QStringLiteral("4"), url}
            << QStringLiteral("--max-concurrent-streams");
        QTest::newRow("HTTP/1.0 with --h2")
            << QStringList{QStringLiteral("--h2"), QStringLiteral("--http1.0"), url}
            << QStringLiteral("HTTP/1.0");
        QTest::newRow("window bits 31")
            << QStringList{QStringLiteral("--h2"), QStringLiteral("--window-bits"),
                           QStringLiteral("31"), url}
            << QStringLiteral("--window-bits");
        QTest::newRow("no streams")
            << QStringList{QStringLiteral("--h2"), QStringLiteral("--max-concurrent-streams"),
                           QStringLiteral("0"), url}
            << QStringLiteral("--max-concurrent-streams");
    }

    void badArgumentsGiveOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliOutcome outcome = runCli(QStringList{QStringLiteral("http")} + arguments);
        const QString refusal = outcome.refusalProblem(message);
        QVERIFY2(refusal.isEmpty(), qPrintable(refusal));
    }
};

QTEST_GUILESS_MAIN(TestHttp2Cli)
#include "tst_http2_cli.moc"
