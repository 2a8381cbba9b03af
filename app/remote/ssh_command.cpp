#include "app/remote/ssh_command.h"

#include "app/common/printable_text.h"

namespace loadscope::app {

QStringList sshCommand(const Host& host, const SshOptions& options, const QStringList& arguments) {
    QStringList command{QStringLiteral("ssh"),
                        QStringLiteral("-T"),
                        QStringLiteral("-o"),
                        QStringLiteral("BatchMode=yes"),
                        QStringLiteral("-o"),
                        QStringLiteral("ConnectTimeout=%1").arg(options.connectTimeoutSeconds),
                        QStringLiteral("-o"),
                        QStringLiteral("ServerAliveInterval=%1").arg(options.aliveIntervalSeconds),
                        QStringLiteral("-o"),
                        QStringLiteral("ServerAliveCountMax=%1").arg(options.aliveCountMax)};
    if (!options.configFile.isEmpty())
        command << QStringLiteral("-F") << options.configFile;
    QStringList words{host.command.trimmed()};
    for (const QString& argument : arguments)
        words << shellQuoted(argument);
    // "--": a destination can never be read as one of ssh's options.
    command << QStringLiteral("--") << sshDestinationArgument(host.destination)
            << words.join(QLatin1Char(' '));
    return command;
}

QStringList sshAgentCommand(const Host& host, const SshOptions& options, const QStringList& extra) {
    return sshCommand(host, options,
                      QStringList{QStringLiteral("lab"), QStringLiteral("agent")} + extra);
}

SshStage sshStageOf(int exitCode, const QString& lastErrorLine) {
    if (exitCode != 255)
        return SshStage::Connected;
    if (lastErrorLine.contains(QLatin1String("Permission denied")) ||
        lastErrorLine.contains(QLatin1String("Host key verification failed")) ||
        lastErrorLine.contains(QLatin1String("Too many authentication failures")))
        return SshStage::Unauthenticated;
    if (lastErrorLine.contains(QLatin1String("closed by remote host")) ||
        lastErrorLine.contains(QLatin1String("Broken pipe")) ||
        lastErrorLine.contains(QLatin1String("Timeout, server")))
        return SshStage::Connected; // it was reached; the connection went away later
    return SshStage::Unreachable;
}

QString describeSshExit(const Host& host, int exitCode, bool crashed,
                        const QString& lastErrorLine) {
    const QString who = QStringLiteral("host '%1' (%2)").arg(host.name, host.destination);
    QString said = printableText(lastErrorLine.trimmed());
    if (said.startsWith(QLatin1String("ssh: ")))
        said.remove(0, 5); // "ssh: " is said once, below
    if (crashed)
        return QStringLiteral("%1: ssh was killed%2")
            .arg(who, said.isEmpty() ? QString() : QStringLiteral(": ") + said);
    switch (exitCode) {
    case 255:
        return QStringLiteral("%1: ssh: %2")
            .arg(who, said.isEmpty() ? QStringLiteral("the connection failed") : said);
    case 127:
        return QStringLiteral("%1: '%2' is not installed there (%3): install Loadscope on it "
                              "(scripts/install-deps.sh build, then cmake --install, or copy "
                              "loadscope-cli onto its PATH) or set the host's command to its path")
            .arg(who, host.command, said.isEmpty() ? QStringLiteral("command not found") : said);
    case 126:
        return QStringLiteral("%1: '%2' cannot be run there (%3)")
            .arg(who, host.command, said.isEmpty() ? QStringLiteral("not executable") : said);
    default:
        return QStringLiteral("%1: the load agent exited with status %2%3")
            .arg(who)
            .arg(exitCode)
            .arg(said.isEmpty() ? QString() : QStringLiteral(": ") + said);
    }
}

} // namespace loadscope::app
