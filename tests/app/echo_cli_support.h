#pragma once

// Helpers of the tcp-rr suites (tst_tcp_cli, tst_tcp_tls_cli): the in-process echo server the
// client runs against, and the check of a run's JSON figures against its counters.
#include "app/servers/echo_server.h"
#include "cli_process.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QTest>
#include <memory>

namespace loadscope::testing {

// On a free port, one loop thread; TLS with a self-signed certificate when `tls`.
inline std::unique_ptr<app::EchoServer> startEcho(size_t requestSize, size_t responseSize,
                                                  bool tls = false) {
    app::EchoServerConfig config;
    config.threads = 1;
    config.requestSize = requestSize;
    config.responseSize = responseSize;
    config.tls = tls;
    auto server = std::make_unique<app::EchoServer>(config);
    if (const auto started = server->start(); !started)
        qWarning("echo server: %s", qPrintable(started.error().toString()));
    return server;
}

// A tcp-rr run in which every transaction should have succeeded.
struct ExactRun {
    int requestSize = 1;
    int responseSize = 1;
    int transactions = 0;
    int connections = 1;
    bool crr = false;
};

// tcp-rr's arguments for `run`, its JSON on stdout; the caller appends its own and HOST:PORT.
inline QStringList exactRunArguments(const ExactRun& run) {
    QStringList arguments{QStringLiteral("tcp-rr"),
                          QStringLiteral("-r"),
                          QStringLiteral("%1,%2").arg(run.requestSize).arg(run.responseSize),
                          QStringLiteral("-c"),
                          QString::number(run.connections),
                          QStringLiteral("-n"),
                          QString::number(run.transactions),
                          QStringLiteral("--json"),
                          QStringLiteral("-")};
    if (run.crr)
        arguments << QStringLiteral("--crr");
    return arguments;
}

// The run's --json and the echo server's own counters both say that every transaction was done
// once: its bytes both ways, one connection per transaction with --crr (else `connections`), and
// no error on either side. Returns the connections opened; the caller checks
// QTest::currentTestFailed().
inline qint64 verifyExactRun(const QJsonObject& json, const app::EchoServer& echo,
                             const ExactRun& run) {
    const qint64 opened = run.crr ? run.transactions : run.connections;
    [&] {
        QCOMPARE(integer(json, "complete"), run.transactions);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(json.value(QStringLiteral("test")).toString(),
                 run.crr ? QStringLiteral("TCP_CRR") : QStringLiteral("TCP_RR"));
        QCOMPARE(integer(json, "bytes_total"), qint64(run.transactions) * run.responseSize);
        QCOMPARE(integer(json, "bytes_sent"), qint64(run.transactions) * run.requestSize);
        const double rate = json.value(QStringLiteral("transactions_per_second")).toDouble();
        QVERIFY(qAbs(rate * json.value(QStringLiteral("duration_s")).toDouble() -
                     run.transactions) < 1);
        QCOMPARE(integer(json, "connections_opened"), opened);
        // The server saw exactly as much: every request, every response, every connection.
        QTRY_COMPARE_WITH_TIMEOUT(echo.stats().activeConnections, uint64_t(0), 5000);
        const auto stats = echo.stats();
        QCOMPARE(stats.requests, uint64_t(run.transactions));
        QCOMPARE(stats.bytesReceived, uint64_t(run.transactions) * uint64_t(run.requestSize));
        QCOMPARE(stats.bytesSent, uint64_t(run.transactions) * uint64_t(run.responseSize));
        QCOMPARE(stats.connections, uint64_t(opened));
        QCOMPARE(stats.errors, uint64_t(0));
    }();
    return opened;
}

} // namespace loadscope::testing
