#pragma once

#include "app/cli/commands.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Runs loadscope-cli's commands as a user would: in-process through the
// loadscope_cli library (runCli), or as the executable named by LOADSCOPE_CLI
// (runCliProcess) where the process itself is under test (exit statuses,
// argument errors, resource limits), bounded in time.
namespace loadscope::testing {

struct CliOutcome {
    int exitCode = -1; // -2: crashed; -1: did not finish in time
    QByteArray out;
    QByteArray err;

    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    // stderr as lines, without the trailing empty one.
    QList<QByteArray> errorLines() const { return err.trimmed().split('\n'); }
    // Empty when the command refused its arguments as promised: exit status 2
    // and one line on stderr that says `expected`; otherwise what differed.
    QString refusalProblem(const QString& expected) const {
        const QString line = QString::fromUtf8(err).trimmed();
        if (exitCode != 2)
            return QStringLiteral("exit status %1, not 2: %2").arg(exitCode).arg(line);
        if (line.contains(QLatin1Char('\n')) || !line.contains(expected))
            return QStringLiteral("not one line saying \"%1\": %2").arg(expected, line);
        return {};
    }
};

inline QString cliPath() {
    return qEnvironmentVariable("LOADSCOPE_CLI");
}

// A stdio stream into memory, read back once closed.
class MemoryStream {
public:
    MemoryStream()
        : m_file(open_memstream(&m_data, &m_size)) {}
    ~MemoryStream() {
        close();
        std::free(m_data);
    }
    MemoryStream(const MemoryStream&) = delete;
    MemoryStream& operator=(const MemoryStream&) = delete;

    FILE* file() const { return m_file; }
    QByteArray take() {
        close();
        return QByteArray(m_data, qsizetype(m_size));
    }

private:
    void close() {
        if (m_file)
            std::fclose(m_file);
        m_file = nullptr;
    }

    char* m_data = nullptr;
    size_t m_size = 0;
    FILE* m_file = nullptr;
};

// `arguments` as after the program name: {"http", "-n", "10", URL}. Every run
// a test starts is bounded by its own -n, -t or -l.
inline CliOutcome runCli(const QStringList& arguments) {
    MemoryStream out;
    MemoryStream err;
    CliOutcome outcome;
    outcome.exitCode = loadscope::cli::runCli(arguments, {out.file(), err.file()});
    outcome.out = out.take();
    outcome.err = err.take();
    return outcome;
}

// What a process that was given its time said: killed and "timed out" when it still runs.
inline CliOutcome outcomeOf(QProcess& process) {
    CliOutcome outcome;
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished();
        outcome.err = "timed out";
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    return outcome;
}

// Any program run to its end, bounded in time: loadscope-cli, or a peer tool it is checked
// against (h2load, curl). `stdoutFile`: standard output goes there instead (say /dev/full).
inline CliOutcome runProgram(const QString& program, const QStringList& arguments,
                             int timeoutMs = 60000, const QString& stdoutFile = {}) {
    QProcess process;
    if (!stdoutFile.isEmpty())
        process.setStandardOutputFile(stdoutFile);
    process.start(program, arguments);
    process.closeWriteChannel();
    process.waitForFinished(timeoutMs);
    return outcomeOf(process);
}

inline CliOutcome runCliProcess(const QStringList& arguments, int timeoutMs = 60000,
                                const QString& stdoutFile = {}) {
    return runProgram(cliPath(), arguments, timeoutMs, stdoutFile);
}

// A peer tool on PATH; empty when it is not installed.
inline QString toolPath(const QString& program) {
    return QStandardPaths::findExecutable(program);
}

// A value of a --json object, with "a.b" reaching into nested objects.
inline QJsonValue jsonAt(const QJsonObject& object, const QString& path) {
    const QStringList parts = path.split(QLatin1Char('.'));
    QJsonValue value = object;
    for (const QString& part : parts)
        value = value.toObject().value(part);
    return value;
}

// A whole-number figure of a --json object ("a.b" as jsonAt), -1 when it is not one.
inline qint64 integer(const QJsonObject& json, const char* path) {
    return jsonAt(json, QLatin1String(path)).toInteger(-1);
}

// HOST:PORT of a server on 127.0.0.1, as the commands other than http take their target.
inline QString address(uint16_t port) {
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

} // namespace loadscope::testing
