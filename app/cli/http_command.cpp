// loadscope-cli http: ab's options, the engine's HTTP/1.1 workload, ab's report.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/result_json.h"
#include "engine/http_protocol.h"

#include <QFile>
#include <chrono>
#include <cstdio>

namespace loadscope::cli {

namespace {

using namespace std::chrono;

void addHttpOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        QStringLiteral("HTTP/1.1 load against URL with ab's options; prints ab's report."));
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
    });
    addCommonRunOptions(parser);
}

struct HttpRun {
    engine::HttpUrl url;
    engine::LoadSpec spec;
    CommonRunOptions common;
};

std::optional<HttpRun> readHttpRun(const QCommandLineParser& parser, QString* error) {
    const auto opt = [&](const char* name) {
        return parser.value(QLatin1String(name));
    };
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (parser.positionalArguments().size() != 1) {
        *error = QStringLiteral("expected exactly one URL (see --help)");
        return std::nullopt;
    }
    HttpRun run;
    std::string urlError;
    auto url =
        engine::parseHttpUrl(parser.positionalArguments().constFirst().toStdString(), &urlError);
    if (!url) {
        *error = QString::fromStdString(urlError);
        return std::nullopt;
    }
    run.url = *url;

    engine::HttpRequestSpec request;
    request.host = url->hostHeader;
    request.pathAndQuery = url->pathAndQuery;
    request.keepAlive = isSet("k");
    request.acceptVariableLength = isSet("l");
    if (isSet("m"))
        request.method = opt("m").toUpper().toStdString();
    if (isSet("i"))
        request.method = "HEAD";
    if (isSet("p") && isSet("u")) {
        *error = QStringLiteral("-p and -u cannot be combined");
        return std::nullopt;
    }
    if (isSet("p") || isSet("u")) {
        const QString path = isSet("p") ? opt("p") : opt("u");
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read body file %1: %2").arg(path, file.errorString());
            return std::nullopt;
        }
        request.body = file.readAll().toStdString();
        if (!isSet("m"))
            request.method = isSet("p") ? "POST" : "PUT";
        request.contentType = isSet("T") ? opt("T").toStdString() : std::string("text/plain");
    }
    for (const QString& header : parser.values(QStringLiteral("H"))) {
        const qsizetype colon = header.indexOf(QLatin1Char(':'));
        if (colon <= 0) {
            *error = QStringLiteral("-H wants 'Name: value', not '%1'").arg(header);
            return std::nullopt;
        }
        request.headers.emplace_back(header.left(colon).trimmed().toStdString(),
                                     header.mid(colon + 1).trimmed().toStdString());
    }

    engine::LoadSpec& spec = run.spec;
    spec.concurrency = 1;
    if (isSet("c")) {
        const auto c = parseCount(QStringLiteral("-c"), opt("c"), 1, 1'000'000, error);
        if (!c)
            return std::nullopt;
        spec.concurrency = uint32_t(*c);
    }
    if (isSet("n")) {
        const auto n = parseCount(QStringLiteral("-n"), opt("n"), 1, uint64_t(1) << 50, error);
        if (!n)
            return std::nullopt;
        spec.requests = *n;
    }
    if (isSet("t")) {
        const auto t = parseSeconds(QStringLiteral("-t"), opt("t"), error);
        if (!t)
            return std::nullopt;
        spec.duration = duration_cast<nanoseconds>(duration<double>(*t));
    }
    if (!isSet("n") && !isSet("t"))
        spec.requests = 1; // as ab
    if (spec.requests > 0 && spec.requests < spec.concurrency) {
        *error = QStringLiteral("cannot use a concurrency level (-c %1) greater than the number of "
                                "requests (-n %2)")
                     .arg(spec.concurrency)
                     .arg(spec.requests);
        return std::nullopt;
    }
    if (isSet("s")) {
        const auto s = parseSeconds(QStringLiteral("-s"), opt("s"), error);
        if (!s)
            return std::nullopt;
        if (*s <= 0) {
            *error = QStringLiteral("-s must be more than 0 seconds");
            return std::nullopt;
        }
        spec.requestTimeout = duration_cast<nanoseconds>(duration<double>(*s));
    }
    if (isSet("pipeline")) {
        const auto depth =
            parseCount(QStringLiteral("--pipeline"), opt("pipeline"), 1, 1024, error);
        if (!depth)
            return std::nullopt;
        if (*depth > 1 && !request.keepAlive) {
            *error = QStringLiteral("--pipeline needs keep-alive (-k)");
            return std::nullopt;
        }
        spec.pipeline = uint32_t(*depth);
    }
    auto common = readCommonRunOptions(parser, error);
    if (!common)
        return std::nullopt;
    run.common = *common;
    applyCommonRunOptions(run.common, spec);
    spec.protocol = std::make_shared<engine::HttpProtocol>(std::move(request));
    return run;
}

} // namespace

int runHttpCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    addHttpOptions(parser);
    if (auto exit = parseOrExit(parser, arguments))
        return *exit;
    QString error;
    auto run = readHttpRun(parser, &error);
    if (!run) {
        printError(command, error);
        return ExitUsage;
    }
    if (auto exit = resolveRunTarget(command, run->url.host, run->url.port, run->spec))
        return *exit;
    if (auto exit = refuseInvalidSpec(command, run->spec))
        return *exit;

    if (!run->common.quiet)
        std::fprintf(stderr, "Benchmarking %s (be patient)\n", run->url.host.c_str());
    const engine::RunResult result = runWithProgress(run->spec, run->common.quiet);
    if (result.unreachable) {
        printError(command, QString::fromStdString(result.firstError));
        return ExitUnreachable;
    }

    QJsonObject json = app::runResultJson(result);
    json[QStringLiteral("requests_per_second")] = result.requestsPerSecond();
    json[QStringLiteral("non_2xx")] = double(result.non2xx);
    json[QStringLiteral("keep_alive")] = double(result.keepAlive);
    json[QStringLiteral("server_software")] = QString::fromStdString(result.serverSoftware);
    json[QStringLiteral("document_length")] = double(result.documentLength);
    QJsonObject codes;
    for (const auto& [code, count] : result.statusCodes)
        codes[QString::number(code)] = double(count);
    json[QStringLiteral("status_codes")] = codes;
    json[QStringLiteral("url")] = parser.positionalArguments().constFirst();
    json[QStringLiteral("pipeline")] = double(run->spec.pipeline);

    if (run->common.jsonPath != QLatin1String("-") && run->common.csvPath != QLatin1String("-")) {
        app::AbReportHeader header;
        header.hostName = QString::fromStdString(run->url.host);
        header.port = run->url.port;
        header.documentPath = QString::fromStdString(run->url.pathAndQuery);
        header.keepAlive = parser.isSet(QStringLiteral("k"));
        std::fputs(qPrintable(app::formatAbReport(result, header)), stdout);
        std::fflush(stdout);
    }
    const QString warning = app::saturationWarning(result);
    if (!warning.isEmpty())
        std::fprintf(stderr, "%s\n", qPrintable(warning));
    if (!writeMachineOutputs(command, run->common, json))
        return ExitInternal;
    return ExitOk;
}

} // namespace loadscope::cli
