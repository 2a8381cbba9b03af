// loadscope-cli udp-rr and udp-stream: netperf's UDP_RR and UDP_STREAM workloads with
// netperf's option letters, netperf's layout.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/netperf_command_parts.h"
#include "app/cli/run_options.h"
#include "app/report/netperf_report.h"
#include "app/session/target_rules.h"

#include <tuple>

namespace loadscope::cli {

namespace {

using app::invalidInput;
using app::Result;
using namespace netperf;

Result<Invocation> readUdpRrInvocation(const QCommandLineParser& parser) {
    auto invocation = readCommon(parser, app::TargetProtocol::UdpRr);
    if (!invocation)
        return invocation;
    app::Target& target = invocation->shot.target;
    target.responseTimeoutSeconds = app::kDefaultUdpTimeoutSeconds;
    if (parser.isSet(QStringLiteral("r"))) {
        const auto sizes = parseSizes(parser.value(QStringLiteral("r")), app::kMaxDatagramBytes);
        if (!sizes)
            return sizes.error();
        std::tie(target.udpRr.requestSize, target.udpRr.responseSize) = *sizes;
    }
    if (parser.isSet(QStringLiteral("b"))) {
        const auto burst = parseCount(QStringLiteral("-b"), parser.value(QStringLiteral("b")), 0,
                                      app::kMaxUdpBurst);
        if (!burst)
            return burst.error();
        target.udpRr.burst = int(*burst);
    }
    if (auto checked = app::checkUdpRr(target.udpRr); !checked)
        return checked.error();
    uint64_t transactions = 0;
    if (parser.isSet(QStringLiteral("n"))) {
        const auto n = parseCount(QStringLiteral("-n"), parser.value(QStringLiteral("n")), 1,
                                  kMaxTransactions);
        if (!n)
            return n.error();
        transactions = *n;
    }
    if (auto length = readLength(parser, invocation->shot.plan, transactions); !length)
        return length.error();
    if (parser.isSet(QStringLiteral("timeout"))) {
        const auto timeout = parsePositiveSeconds(QStringLiteral("--timeout"),
                                                  parser.value(QStringLiteral("timeout")));
        if (!timeout)
            return timeout.error();
        target.responseTimeoutSeconds = *timeout;
    }
    auto output = readCommonRunOptions(parser, invocation->shot.plan);
    if (!output)
        return output.error();
    invocation->output = *output;
    app::NetperfRunSetup& setup = invocation->setup;
    setup.test = QStringLiteral("UDP_RR");
    setup.requestSize = uint32_t(target.udpRr.requestSize);
    setup.responseSize = uint32_t(target.udpRr.responseSize);
    setup.burst = uint32_t(target.udpRr.burst);
    setup.timeoutSeconds = target.responseTimeoutSeconds;
    if (auto rate = readRateOptions(parser, invocation->shot); !rate)
        return rate.error();
    return invocation;
}

Result<Invocation> readUdpStreamInvocation(const QCommandLineParser& parser) {
    auto invocation = readCommon(parser, app::TargetProtocol::UdpStream);
    if (!invocation)
        return invocation;
    app::Target& target = invocation->shot.target;
    target.responseTimeoutSeconds = app::kDefaultUdpTimeoutSeconds;
    if (parser.isSet(QStringLiteral("m"))) {
        const auto m = parseCount(QStringLiteral("-m"), parser.value(QStringLiteral("m")), 1,
                                  app::kMaxDatagramBytes);
        if (!m)
            return m.error();
        target.udpStream.messageSize = int(*m);
    }
    if (auto length = readLength(parser, invocation->shot.plan, std::nullopt); !length)
        return length.error();
    auto output = readCommonRunOptions(parser, invocation->shot.plan);
    if (!output)
        return output.error();
    invocation->output = *output;
    invocation->setup.test = QStringLiteral("UDP_STREAM");
    invocation->setup.sendSize = uint32_t(target.udpStream.messageSize);
    if (auto rate = readRateOptions(parser, invocation->shot); !rate)
        return rate.error();
    return invocation;
}

void addUdpRrOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "UDP request/response against HOST:PORT, as netperf UDP_RR: send a datagram of REQ\n"
        "bytes, wait for an answer of RESP bytes, repeat; the peer answers every datagram,\n"
        "e.g. 'loadscope-cli serve echo --udp --response-size RESP'. Requests and answers of\n"
        "8 bytes or more carry a sequence number, so that out-of-order, repeated, late and\n"
        "stray answers are counted apart. A request unanswered within --timeout is lost: it\n"
        "fails as such and is not sent again (netperf's UDP_RR would stall on it).\n"
        "Runs -l seconds (default 10) or -n transactions; with both, whichever ends first."));
    addConnectionOptions(parser);
    parser.addOptions({
        {QStringLiteral("r"), QStringLiteral("Request and response sizes (default 1,1)."),
         QStringLiteral("REQ,RESP")},
        {QStringLiteral("l"),
         QStringLiteral("Seconds to run (default 10); -l -N runs N transactions, as netperf."),
         QStringLiteral("seconds")},
        {QStringLiteral("n"), QStringLiteral("Transactions to run, in total over the sockets."),
         QStringLiteral("transactions")},
        {QStringLiteral("b"),
         QStringLiteral("Burst, as netperf's -b: this many requests outstanding on a socket\n"
                        "beyond the first (default 0)."),
         QStringLiteral("N")},
        {QStringLiteral("timeout"),
         QStringLiteral("Seconds to wait for an answer before counting the request lost\n"
                        "(default 1)."),
         QStringLiteral("SECONDS")},
    });
    addRateOptions(parser, true);
    addCommonRunOptions(parser);
}

void addUdpStreamOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "UDP send throughput to HOST:PORT, as netperf UDP_STREAM: datagrams of -m bytes back\n"
        "to back for -l seconds (default 10) on each socket; the peer only reads, e.g.\n"
        "'loadscope-cli serve sink --udp', which says at the end what it received: the\n"
        "report's second line, as netperf's receive side. Messages of 16 bytes or more carry\n"
        "the header the sink counts by."));
    addConnectionOptions(parser);
    parser.addOptions({
        {QStringLiteral("l"), QStringLiteral("Seconds to run (default 10)."),
         QStringLiteral("seconds")},
        {QStringLiteral("m"), QStringLiteral("Bytes per datagram (default 65507, netperf's)."),
         QStringLiteral("bytes")},
    });
    // Not in the help: a stream has no requests to space, and the engine says so in one line.
    addRateOptions(parser, true, true);
    addCommonRunOptions(parser);
}

} // namespace

Result<OneShot> parseUdpRrOneShot(const QStringList& arguments) {
    return parseOneShot(addUdpRrOptions, readUdpRrInvocation, arguments);
}

Result<OneShot> parseUdpStreamOneShot(const QStringList& arguments) {
    return parseOneShot(addUdpStreamOptions, readUdpStreamInvocation, arguments);
}

int runUdpRrCommand(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    addUdpRrOptions(parser);
    return parseAndRun(parser, arguments, io, readUdpRrInvocation, app::formatNetperfRrReport,
                       app::udpRrResultJson);
}

int runUdpStreamCommand(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    addUdpStreamOptions(parser);
    return parseAndRun(parser, arguments, io, readUdpStreamInvocation,
                       app::formatNetperfUdpStreamReport, app::udpStreamResultJson);
}

} // namespace loadscope::cli
