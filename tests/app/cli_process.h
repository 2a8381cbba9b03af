#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

// Runs loadscope-cli (named by LOADSCOPE_CLI) as a user would, bounded in time.
namespace loadscope::testing {

struct CliOutcome {
    int exitCode = -1; // -2: crashed; -1: did not finish in time
    QByteArray out;
    QByteArray err;

    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    // stderr as lines, without the trailing empty one.
    QList<QByteArray> errorLines() const { return err.trimmed().split('\n'); }
};

inline QString cliPath() {
    return qEnvironmentVariable("LOADSCOPE_CLI");
}

inline CliOutcome runCli(const QStringList& arguments, int timeoutMs = 60000) {
    QProcess process;
    process.start(cliPath(), arguments);
    CliOutcome outcome;
    if (!process.waitForFinished(timeoutMs)) {
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

// A value of a --json object, with "a.b" reaching into nested objects.
inline QJsonValue jsonAt(const QJsonObject& object, const QString& path) {
    const QStringList parts = path.split(QLatin1Char('.'));
    QJsonValue value = object;
    for (const QString& part : parts)
        value = value.toObject().value(part);
    return value;
}

} // namespace loadscope::testing
