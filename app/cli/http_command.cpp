// loadscope-cli http: ab's options, the engine's HTTP/1.1 workload, ab's report.
#include "app/cli/capacity_one_shot.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/one_shot.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/result_json.h"
#include "app/session/target_rules.h"
#include "engine/http2_protocol.h"
#include "engine/http_protocol.h"

#include <cstdio>

namespace loadscope::cli {

namespace {

using app::invalidInput;
using app::Result;

void addHttpOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        QStringLiteral("HTTP load against URL with ab's options; prints ab's report."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("URL"), QStringLiteral("http://host[:port]/path"));
    parser.addOptions({
        {QStringLiteral("c"), QStringLiteral("Concurrency: connections open at once (default 1)."),
         QStringLiteral("concurrency")},
        {QStringLiteral("n"), QStringLiteral("Requests to perform (default 1 unless -t is given)."),
         QStringLiteral("requests")},
        {QStringLiteral("t"), QStringLiteral("Seconds to run; with -n, whichever ends first."),
         QStringLiteral("timelimit")},
        {QStringLiteral("k"), QStringLiteral("Keep-alive: many requests per connection.")},
        {QStringLiteral("H"), QStringLiteral("Extra header 'Name: value' (repeatable)."),
         QStringLiteral("header")},
        {QStringLiteral("m"), QStringLiteral("HTTP method (default GET)."),
         QStringLiteral("method")},
        {QStringLiteral("i"), QStringLiteral("Send HEAD requests.")},
        {QStringLiteral("p"), QStringLiteral("POST the contents of FILE."), QStringLiteral("file")},
        {QStringLiteral("u"), QStringLiteral("PUT the contents of FILE."), QStringLiteral("file")},
        {QStringLiteral("T"), QStringLiteral("Content-Type of the -p/-u body."),
         QStringLiteral("content-type")},
        {QStringLiteral("s"), QStringLiteral("Seconds to wait for each response (default 30)."),
         QStringLiteral("timeout")},
        {QStringLiteral("l"),
         QStringLiteral("Accept bodies of varying length (no Length failures).")},
        {QStringLiteral("pipeline"),
         QStringLiteral("Requests outstanding per connection (default 1; needs -k)."),
         QStringLiteral("N")},
        {QStringLiteral("http1.0"),
         QStringLiteral("Send HTTP/1.0 requests, as ab does (default HTTP/1.1).")},
        {QStringLiteral("h2"),
         QStringLiteral("HTTP/2: h2c by prior knowledge on http://, h2 by ALPN on https://.")},
        {QStringLiteral("max-concurrent-streams"),
         QStringLiteral("--h2: streams per connection (h2load -m; default 1); concurrency is "
                        "-c x N."),
         QStringLiteral("N")},
        {QStringLiteral("window-bits"),
         QStringLiteral("--h2: stream window (2^N)-1, N 0-30 (h2load -w; default 30)."),
         QStringLiteral("N")},
        {QStringLiteral("connection-window-bits"),
         QStringLiteral("--h2: connection window (2^N)-1, N 0-30 (h2load -W; default 30)."),
         QStringLiteral("N")},
    });
    addTlsClientOptions(parser, QStringLiteral("https"), QStringLiteral("; -k is keep-alive here"));
    addRateOptions(parser, true);
    addCapacityOptions(parser);
    addCommonRunOptions(parser);
}

struct HttpInvocation {
    OneShot shot;
    OutputOptions output;
};

Result<HttpInvocation> readHttpInvocation(const QCommandLineParser& parser) {
    const auto opt = [&](const char* name) {
        return parser.value(QLatin1String(name));
    };
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (parser.positionalArguments().size() != 1)
        return invalidInput(QStringLiteral("expected exactly one URL (see --help)"));
    app::Target target;
    target.name = QStringLiteral("http");
    target.protocol = app::TargetProtocol::Http;
    app::HttpOptions& http = target.http;
    http.url = parser.positionalArguments().constFirst();
    http.keepAlive = isSet("k");
    http.acceptVariableLength = isSet("l");
    http.http10 = isSet("http1.0");
    if (isSet("m"))
        http.method = opt("m").toUpper();
    if (isSet("i"))
        http.method = QStringLiteral("HEAD");
    readTlsClientOptions(parser, http);
    if (const QStringList tls = tlsClientOptionsSet(parser);
        !tls.isEmpty() &&
        !http.url.trimmed().startsWith(QLatin1String("https://"), Qt::CaseInsensitive))
        return invalidInput(
            QStringLiteral("%1 is a TLS option: it needs an https:// URL").arg(tls.constFirst()));
    if (isSet("p") && isSet("u"))
        return invalidInput(QStringLiteral("-p and -u cannot be combined"));
    if (isSet("p") || isSet("u")) {
        http.bodyFile = isSet("p") ? opt("p") : opt("u");
        if (!isSet("m"))
            http.method = isSet("p") ? QStringLiteral("POST") : QStringLiteral("PUT");
        http.contentType = isSet("T") ? opt("T") : QStringLiteral("text/plain");
    }
    for (const QString& header : parser.values(QStringLiteral("H"))) {
        const qsizetype colon = header.indexOf(QLatin1Char(':'));
        if (colon <= 0)
            return invalidInput(QStringLiteral("-H wants 'Name: value', not '%1'").arg(header));
        http.headers.emplace_back(header.left(colon).trimmed(), header.mid(colon + 1).trimmed());
    }
    if (isSet("s")) {
        const auto s = parsePositiveSeconds(QStringLiteral("-s"), opt("s"));
        if (!s)
            return s.error();
        target.responseTimeoutSeconds = *s;
    }
    if (isSet("pipeline")) {
        const auto depth = parseCount(QStringLiteral("--pipeline"), opt("pipeline"), 1, 1024);
        if (!depth)
            return depth.error();
        http.pipeline = int(*depth);
    }

    http.http2 = isSet("h2");
    for (const char* name : {"max-concurrent-streams", "window-bits", "connection-window-bits"})
        if (isSet(name) && !http.http2)
            return invalidInput(
                QStringLiteral("--%1 is an HTTP/2 option: it needs --h2").arg(QLatin1String(name)));
    if (isSet("max-concurrent-streams")) {
        const auto streams = parseCount(QStringLiteral("--max-concurrent-streams"),
                                        opt("max-concurrent-streams"), 1, app::kMaxHttp2Streams);
        if (!streams)
            return streams.error();
        http.maxConcurrentStreams = int(*streams);
    }
    const struct {
        const char* name;
        int* bits;
    } windows[] = {{"window-bits", &http.windowBits},
                   {"connection-window-bits", &http.connectionWindowBits}};
    for (const auto& window : windows) {
        if (!isSet(window.name))
            continue;
        const auto bits = parseCount(QLatin1String("--") + QLatin1String(window.name),
                                     opt(window.name), 0, app::kMaxHttp2WindowBits);
        if (!bits)
            return bits.error();
        *window.bits = int(*bits);
    }

    uint64_t concurrency = 1;
    if (isSet("c")) {
        const auto c = parseCount(QStringLiteral("-c"), opt("c"), 1, app::kMaxConcurrency);
        if (!c)
            return c.error();
        concurrency = *c;
    }
    HttpInvocation invocation{oneShotOf(std::move(target), int(concurrency)), {}};
    app::SweepPlan& plan = invocation.shot.plan;
    // -n, -t, both (whichever ends first) or neither (one request, as ab).
    plan.limit = app::PointLimit::Requests;
    plan.requestsPerPoint = 1;
    if (isSet("n")) {
        const auto n = parseCount(QStringLiteral("-n"), opt("n"), 1, uint64_t(1) << 50);
        if (!n)
            return n.error();
        plan.requestsPerPoint = *n;
    }
    if (isSet("t")) {
        const auto t = parsePositiveSeconds(QStringLiteral("-t"), opt("t"));
        if (!t)
            return t.error();
        if (isSet("n")) {
            plan.requestsTimeLimitSeconds = *t;
        } else {
            plan.limit = app::PointLimit::Duration;
            plan.durationSeconds = *t;
        }
    }
    auto output = readCommonRunOptions(parser, plan);
    if (!output)
        return output.error();
    invocation.output = *output;
    if (auto capacity = readCapacityOptions(parser, invocation.shot,
                                            {QStringLiteral("n"), QStringLiteral("t")});
        !capacity)
        return capacity.error();
    if (auto rate = readRateOptions(parser, invocation.shot); !rate)
        return rate.error();
    return invocation;
}

} // namespace

Result<OneShot> parseHttpOneShot(const QStringList& arguments) {
    return parseOneShot(addHttpOptions, readHttpInvocation, arguments);
}

int runHttpCommand(const QStringList& arguments, const CliIo& io) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    addHttpOptions(parser);
    auto prepared = prepareRun(parser, arguments, readHttpInvocation, io);
    if (const int* exit = std::get_if<int>(&prepared))
        return *exit;
    const auto& [invocation, spec, preload] = std::get<1>(prepared);
    const auto* protocol = dynamic_cast<const engine::HttpProtocol*>(spec.protocol.get());
    const auto* h2 = dynamic_cast<const engine::Http2Protocol*>(spec.protocol.get());
    if (!protocol && !h2) {
        printError(io, command, QStringLiteral("the builder made no HTTP workload"));
        return ExitInternal;
    }
    const engine::HttpRequestSpec& request = protocol ? protocol->spec() : h2->spec();
    const OutputOptions& output = invocation.output;
    app::CliResultContext context;
    context.protocol = app::TargetProtocol::Http;
    context.url = parser.positionalArguments().constFirst();
    context.pipeline = spec.pipeline;
    if (invocation.shot.plan.levelKind == app::SweepLevelKind::Capacity)
        return runCapacitySearch(command, invocation.shot, spec, preload, output, context, io);

    std::string urlError;
    const auto url = engine::parseHttpUrl(invocation.shot.target.http.url.toStdString(), &urlError);
    if (!output.quiet)
        std::fprintf(io.err, "Benchmarking %s (be patient)\n", url ? url->host.c_str() : "");
    OneShotRunner runner(io, remoteLoadOf(invocation));
    const engine::RunResult result = runner.run(spec, output.quiet);
    if (result.unreachable) {
        printError(io, command, QString::fromStdString(result.firstError));
        return ExitUnreachable;
    }

    const app::PointResult point = oneShotResult(result, invocation.shot);
    const QJsonObject json = app::cliResultJson(point, context);

    if (output.printsReport() && url) {
        app::AbReportHeader header;
        header.hostName = QString::fromStdString(url->host);
        header.port = url->port;
        header.documentPath = QString::fromStdString(request.pathAndQuery);
        header.keepAlive = request.keepAlive || h2;
        header.http10 = request.http10;
        if (h2) {
            header.http2 = true;
            header.connections = spec.concurrency;
            header.streams = spec.pipeline;
        }
        header.tls = spec.tls.enabled;
        header.variableLength = request.acceptVariableLength;
        std::fputs(qPrintable(app::formatAbReport(result, header)), io.out);
        std::fflush(io.out);
    }
    return finishRun(command, result, point, output, json, runner);
}

} // namespace loadscope::cli
