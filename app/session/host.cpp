#include "app/session/host.h"

#include "app/common/printable_text.h"

#include <QRegularExpression>

namespace loadscope::app {

namespace {

bool hasControlCharacter(const QString& text) {
    for (const QChar c : text) {
        if (c.category() == QChar::Other_Control)
            return true;
    }
    return false;
}

} // namespace

Result<void> checkHostName(const QString& name) {
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z0-9._-]{1,64}$"));
    if (!rule.match(name).hasMatch())
        return invalidInput(
            QStringLiteral("a host's name is 1 to 64 letters, digits, '.', '_' or '-', not \"%1\"")
                .arg(printableText(name)));
    return {};
}

Result<void> checkSshDestination(const QString& destination) {
    const auto refuse = [&](const QString& why) {
        return invalidInput(
            QStringLiteral("SSH destination \"%1\" %2").arg(printableText(destination), why));
    };
    if (destination.isEmpty())
        return invalidInput(QStringLiteral("an SSH destination is empty"));
    if (destination.startsWith(QLatin1Char('-')))
        return refuse(QStringLiteral("begins with '-', which ssh would read as an option"));
    for (const QChar c : destination) {
        if (c.isSpace() || c == QLatin1Char('\'') || c == QLatin1Char('"') ||
            c == QLatin1Char('\\') || c.category() == QChar::Other_Control)
            return refuse(QStringLiteral("holds a space, a quote or a control character"));
    }
    if (destination.count(QLatin1Char('@')) > 1)
        return refuse(QStringLiteral("has more than one '@'"));
    const QString hostPart = destination.section(QLatin1Char('@'), -1);
    if (hostPart.isEmpty())
        return refuse(QStringLiteral("names no host"));
    QString port;
    if (hostPart.startsWith(QLatin1Char('['))) {
        const qsizetype close = hostPart.indexOf(QLatin1Char(']'));
        if (close < 2)
            return refuse(QStringLiteral("opens '[' without an address and ']'"));
        const QString rest = hostPart.mid(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(QLatin1Char(':')))
            return refuse(QStringLiteral("has something after ']' that is not :PORT"));
        port = rest.mid(1);
        if (rest.startsWith(QLatin1Char(':')) && port.isEmpty())
            return refuse(QStringLiteral("ends in ':' without a port"));
    } else if (hostPart.count(QLatin1Char(':')) == 1) {
        port = hostPart.section(QLatin1Char(':'), 1);
        if (hostPart.startsWith(QLatin1Char(':')))
            return refuse(QStringLiteral("names no host before its port"));
        if (port.isEmpty())
            return refuse(QStringLiteral("ends in ':' without a port"));
    }
    if (!port.isEmpty()) {
        bool ok = false;
        const uint value = port.toUInt(&ok);
        if (!ok || value < 1 || value > 65535)
            return refuse(QStringLiteral("has port \"%1\", expected 1 to 65535").arg(port));
    }
    return {};
}

Result<void> checkHostCommand(const QString& command) {
    if (command.trimmed().isEmpty())
        return invalidInput(QStringLiteral("a host's command is empty"));
    if (hasControlCharacter(command))
        return invalidInput(QStringLiteral("a host's command \"%1\" holds a control character")
                                .arg(printableText(command)));
    return {};
}

Result<void> checkHost(const Host& host) {
    if (auto checked = checkHostName(host.name); !checked)
        return checked;
    if (auto checked = checkSshDestination(host.destination); !checked)
        return checked.error().prefixed(QStringLiteral("host '%1'").arg(host.name));
    if (auto checked = checkHostCommand(host.command); !checked)
        return checked.error().prefixed(QStringLiteral("host '%1'").arg(host.name));
    return {};
}

Result<void> checkServerProcessName(const QString& name) {
    if (name.isEmpty() || name.size() > 255 || name.contains(QLatin1Char('/')) ||
        hasControlCharacter(name))
        return invalidInput(QStringLiteral("a server process name is a program's name of one "
                                           "line without '/', not \"%1\"")
                                .arg(printableText(name)));
    return {};
}

Result<void> checkContainerName(const QString& name) {
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]{0,253}$"));
    if (!rule.match(name).hasMatch())
        return invalidInput(QStringLiteral("a container's name is letters, digits, '_', '.' or "
                                           "'-', beginning with a letter or digit, not \"%1\"")
                                .arg(printableText(name)));
    return {};
}

QString sshDestinationArgument(const QString& destination) {
    const QString hostPart = destination.section(QLatin1Char('@'), -1);
    const bool bracketedWithPort =
        hostPart.startsWith(QLatin1Char('[')) && hostPart.contains(QStringLiteral("]:"));
    const bool plainWithPort =
        !hostPart.startsWith(QLatin1Char('[')) && hostPart.count(QLatin1Char(':')) == 1;
    if (bracketedWithPort || plainWithPort)
        return QStringLiteral("ssh://") + destination;
    if (hostPart.startsWith(QLatin1Char('['))) // "[v6]" alone: ssh wants the bare address
        return destination.left(destination.size() - hostPart.size()) +
               hostPart.mid(1, hostPart.size() - 2);
    return destination;
}

QString shellQuoted(const QString& word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./,:=@%+-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace loadscope::app
