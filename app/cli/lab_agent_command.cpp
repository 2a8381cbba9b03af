// loadscope-cli lab agent: the load agent, speaking the agent protocol
// (app/agent/agent_protocol.h) over its stdin and stdout.
#include "app/agent/load_agent.h"
#include "app/cli/commands.h"
#include "app/common/atomic_file_writer.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <unistd.h>

namespace loadscope::cli {

namespace {

// Splits what stdin delivers into lines; a line beyond the protocol's limit is
// answered with one error and skipped, never buffered whole.
class LineSplitter {
public:
    template <typename Line, typename Overlong>
    void feed(const char* data, size_t size, Line line, Overlong overlong) {
        for (size_t i = 0; i < size; ++i) {
            const char c = data[i];
            if (c == '\n') {
                if (m_skipping)
                    m_skipping = false;
                else
                    line(m_buffer);
                m_buffer.clear();
                continue;
            }
            if (m_skipping)
                continue;
            m_buffer.append(c);
            if (m_buffer.size() > app::kMaxAgentLineBytes) {
                m_buffer.clear();
                m_skipping = true;
                overlong();
            }
        }
    }

private:
    QByteArray m_buffer;
    bool m_skipping = false;
};

} // namespace

int runLabAgentCommand(const QStringList& arguments, const CliIo& io) {
    static const char* const kUsage =
        "Usage: loadscope-cli lab agent [--clock-skew-ms MS]\n"
        "Runs load points sent as agent protocol requests on stdin (one JSON object\n"
        "per line) and answers on stdout: progress snapshots, results, errors, its\n"
        "clock, windows of a watched server's CPU. This is what Loadscope runs on\n"
        "another host over ssh. Load goes only to 127.0.0.0/8 and ::1, to the\n"
        "endpoints a run request allows (the targets the user chose to load from\n"
        "this host), or, inside the lab, to its range.\n"
        "  --clock-skew-ms MS  For tests: report and keep every time as a host whose\n"
        "                      clock is MS ahead (negative: behind) would.\n";
    std::chrono::milliseconds skew{0};
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString& argument = arguments.at(i);
        if (argument == QLatin1String("--help")) {
            std::fputs(kUsage, io.out);
            return ExitOk;
        }
        bool ok = false;
        const qlonglong ms = arguments.value(i + 1).toLongLong(&ok);
        if (argument == QLatin1String("--clock-skew-ms") && ok &&
            std::abs(ms) <= 365LL * 24 * 3600 * 1000) {
            skew = std::chrono::milliseconds(ms);
            ++i;
            continue;
        }
        std::fprintf(io.err, "loadscope-cli lab agent: unknown or malformed argument '%s'\n%s",
                     qPrintable(argument), kUsage);
        return ExitUsage;
    }
    FILE* out = io.out;
    // Flushed line by line: the client reads each as it arrives. A client that
    // has gone (a closed stdout) reads nothing more: the agent ends at once, as
    // SIGPIPE ended it before the CLI caught that signal, with a line and exit 1.
    const auto writeLine = [out, &io](const QByteArray& line) {
        std::fwrite(line.constData(), 1, size_t(line.size()), out);
        if (auto flushed = app::flushStream(out, QStringLiteral("standard output")); !flushed) {
            std::fprintf(io.err, "loadscope-cli lab agent: %s\n",
                         qPrintable(flushed.error().message));
            std::fflush(io.err);
            std::_Exit(ExitInternal);
        }
    };
    app::LoadAgent agent(writeLine, app::AgentEnvironment::current());
    agent.setClockSkew(skew);
    int status = ExitOk;
    QObject::connect(&agent, &app::LoadAgent::finished, &agent, [&status](int code) {
        status = code;
        QCoreApplication::exit(code);
    });
    LineSplitter splitter;
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, &agent, [&] {
        char buffer[65536];
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        if (n <= 0) {
            input.setEnabled(false);
            agent.endOfInput();
            return;
        }
        splitter.feed(
            buffer, size_t(n), [&](const QByteArray& line) { agent.handleLine(line); },
            [&] {
                writeLine(app::encodeAgentMessage(
                    app::agentError(0, QStringLiteral("bad request: a line longer than %1 bytes")
                                           .arg(app::kMaxAgentLineBytes))));
            });
    });
    QCoreApplication::exec();
    return status;
}

} // namespace loadscope::cli
