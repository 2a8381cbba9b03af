#pragma once

#include <QFile>
#include <QString>

// README.md as the tests read its promises, from the source tree the suite
// was built from (LOADSCOPE_SOURCE_DIR): a help text that states a fact the
// README states says it in the same words, so that neither can drift alone.
namespace loadscope::testing {

// The Markdown as written; empty when it cannot be read (a check then fails).
inline QString readmeMarkdown() {
    QFile file(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") + QStringLiteral("/README.md"));
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The README as running text: one line, without Markdown's `code` and
// *emphasis* marks, as a help text says the same words.
inline QString readmeProse() {
    QString text = readmeMarkdown();
    text.remove(QLatin1Char('`'));
    text.remove(QLatin1Char('*'));
    return text.simplified();
}

// Empty when both the help text (as printed: wrapped, indented) and the
// README state `phrase`; otherwise which does not.
inline QString statedByHelpAndReadme(const QByteArray& help, const QString& phrase) {
    const QString helpText = QString::fromUtf8(help).simplified();
    QStringList missing;
    if (!helpText.contains(phrase))
        missing << QStringLiteral("the help (%1)").arg(helpText);
    if (!readmeProse().contains(phrase))
        missing << QStringLiteral("the README");
    return missing.isEmpty() ? QString()
                             : QStringLiteral("\"%1\" is not in %2")
                                   .arg(phrase, missing.join(QStringLiteral(" nor in ")));
}

} // namespace loadscope::testing
