#pragma once

#include "engine/run_result.h"

#include <QString>

namespace loadscope::app {

// What the report says about the target besides the run's own numbers.
struct AbReportHeader {
    QString hostName;
    int port = 80;
    QString documentPath = QStringLiteral("/");
    bool keepAlive = false;
    bool http10 = false; // the request line said HTTP/1.0 (--http1.0), else HTTP/1.1
    bool tls = false;    // https: the TLS lines and the TLS row of Connection Times
    // -l: bodies of any length were accepted, so there is no one document
    // length; "Variable", as ab prints it.
    bool variableLength = false;
    // HTTP/2: concurrency is connections x streams, and the failures add
    // RST_STREAM and GOAWAY.
    bool http2 = false;
    uint32_t connections = 0;
    uint32_t streams = 1;
};

// ab 2.3's report, section by section in ab's order, with milliseconds to
// three decimals (loopback latencies are below ab's 1 ms resolution), 99.9 %
// and 99.99 % added to the percentile table, and a closing section on the load
// generator: threads, where they ran, their CPU load, status codes.
QString formatAbReport(const engine::RunResult& result, const AbReportHeader& header);

// The rows of ab's "Percentage of the requests served within a certain time
// (ms)" table for `histogram`: 50 % to 99.99 %, then 100 % (the longest).
QString abPercentileRows(const engine::Histogram& histogram);

// One line when the load generator itself was the bottleneck, else empty.
QString saturationWarning(const engine::RunResult& result);

// The run's TLS, as the reports print it: "TLSv1.3,TLS_AES_256_GCM_SHA384" (ab's "SSL/TLS
// Protocol"), or "(no handshake completed)"; and "12 (11 resumed, 1 full)".
QString tlsProtocolText(const engine::RunResult& result);
QString tlsHandshakesText(const engine::RunResult& result);

// "ran on CPUs 0,1" / "pinned to CPUs 0,1".
QString threadPlacement(const engine::RunResult& result);

} // namespace loadscope::app
