// What `cmake --install` puts under a prefix: exactly the files a package
// holds (both programs in one bin/, the desktop files, the man pages, the
// example sessions, copyright and changelog), the examples byte for byte those
// the programs carry, the installed programs running, and man pages that
// render without a warning and name every option each installed program's
// --help prints, so that a page cannot drift from its program.
#include "app/cli/commands.h"
#include "app/session/session_file.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope;

namespace {

struct Ran {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Ran run(const QString& program, const QStringList& arguments,
        const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    Ran ran;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return ran;
    }
    ran.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    ran.out = process.readAllStandardOutput();
    ran.err = process.readAllStandardError();
    return ran;
}

// The option names of the option lines of a text: lines indented `indent`
// spaces that start with a dash, up to the gap before their description
// ("  -c <concurrency>   Concurrency...", "  -h, --help   Displays...").
QSet<QString> optionsIn(const QString& text, int indent) {
    const QRegularExpression line(QStringLiteral("^ {%1}(-\\S.*?)(?: {2,}|$)").arg(indent),
                                  QRegularExpression::MultilineOption);
    static const QRegularExpression name(
        QStringLiteral("(?:^|[ ,])(--?[A-Za-z0-9][A-Za-z0-9.-]*)"));
    QSet<QString> names;
    for (auto lines = line.globalMatch(text); lines.hasNext();)
        for (auto found = name.globalMatch(lines.next().captured(1)); found.hasNext();)
            names << found.next().captured(1);
    return names;
}

} // namespace

class TestInstallTree : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_prefix.isValid());
        const Ran installed =
            run(qEnvironmentVariable("LOADSCOPE_CMAKE"),
                {QStringLiteral("--install"), qEnvironmentVariable("LOADSCOPE_BUILD_DIR"),
                 QStringLiteral("--prefix"), m_prefix.path()});
        QVERIFY2(installed.exitCode == 0, installed.err.constData());
    }

    void holdsWhatAPackageHolds() {
        QSet<QString> expected{
            QStringLiteral("bin/loadscope"),
            QStringLiteral("bin/loadscope-cli"),
            QStringLiteral("share/applications/loadscope.desktop"),
            QStringLiteral("share/icons/hicolor/scalable/apps/loadscope.svg"),
            QStringLiteral("share/mime/packages/loadscope.xml"),
            QStringLiteral("share/metainfo/loadscope.metainfo.xml"),
            QStringLiteral("share/man/man1/loadscope.1.gz"),
            QStringLiteral("share/man/man1/loadscope-cli.1.gz"),
            QStringLiteral("share/doc/loadscope/copyright"),
            QStringLiteral("share/doc/loadscope/changelog.gz"),
        };
        for (const QString& name : app::exampleSessionNames())
            expected << QStringLiteral("share/loadscope/sessions/%1.loadscope").arg(name);
        QSet<QString> found;
        for (QDirIterator it(m_prefix.path(), QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();)
            found << QDir(m_prefix.path()).relativeFilePath(it.next());
        QCOMPARE(found, expected);
        for (const char* program : {"bin/loadscope", "bin/loadscope-cli"})
            QVERIFY(QFileInfo(m_prefix.filePath(QLatin1String(program))).isExecutable());
    }

    // The installed copies are the sessions the programs open by name.
    void examplesAreThoseTheProgramsCarry() {
        const QStringList names = app::exampleSessionNames();
        QVERIFY(names.contains(QStringLiteral("lab-tcp-rr")));
        for (const QString& name : names) {
            QFile carried(app::exampleSessionPath(name));
            QFile installed(m_prefix.filePath(
                QStringLiteral("share/loadscope/sessions/%1.loadscope").arg(name)));
            QVERIFY(carried.open(QIODevice::ReadOnly));
            QVERIFY2(installed.open(QIODevice::ReadOnly), qPrintable(installed.fileName()));
            QCOMPARE(installed.readAll(), carried.readAll());
        }
    }

    void installedCliRuns() {
        const Ran version = run(m_prefix.filePath(QStringLiteral("bin/loadscope-cli")),
                                {QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.out, QByteArray("loadscope-cli " LOADSCOPE_VERSION "\n"));
    }

    void manPagesRenderAndNameEveryOption_data() {
        QTest::addColumn<QString>("page");
        QTest::addColumn<QList<QStringList>>("helps"); // the arguments of each --help
        QList<QStringList> cli{{QStringLiteral("--help")}};
        for (const QString& command : cli::commandNames()) {
            cli << QStringList{command, QStringLiteral("--help")};
            for (const QString& sub : cli::subcommandNames(command))
                cli << QStringList{command, sub, QStringLiteral("--help")};
        }
        QTest::newRow("loadscope-cli") << QStringLiteral("loadscope-cli") << cli;
        QTest::newRow("loadscope")
            << QStringLiteral("loadscope") << QList<QStringList>{{QStringLiteral("--help")}};
    }

    void manPagesRenderAndNameEveryOption() {
        QFETCH(QString, page);
        QFETCH(QList<QStringList>, helps);
        const QString file = m_prefix.filePath(QStringLiteral("share/man/man1/%1.1.gz").arg(page));
        // As lintian checks a page: every warning of man and groff on stderr.
        const Ran checked =
            run(QStringLiteral("man"),
                {QStringLiteral("--warnings"), QStringLiteral("-E"), QStringLiteral("UTF-8"),
                 QStringLiteral("-l"), QStringLiteral("-Tutf8"), QStringLiteral("-Z"), file});
        QCOMPARE(checked.exitCode, 0);
        QVERIFY2(checked.err.isEmpty(), checked.err.constData());
        QProcessEnvironment wide = QProcessEnvironment::systemEnvironment();
        wide.insert(QStringLiteral("MANWIDTH"), QStringLiteral("200"));
        const Ran rendered = run(QStringLiteral("man"), {QStringLiteral("-l"), file}, wide);
        QCOMPARE(rendered.exitCode, 0);
        const QString text = QString::fromUtf8(rendered.out);
        QVERIFY(text.contains(QStringLiteral("%1 - ").arg(page))); // the NAME line
        // The page's options: its tagged paragraphs, as man sets them.
        const QSet<QString> pageOptions = optionsIn(text, 7);
        QVERIFY(pageOptions.contains(QStringLiteral("--help")));
        for (const QStringList& arguments : helps) {
            // The installed program's help, read now, against the page made at build time.
            const Ran help = run(m_prefix.filePath(QStringLiteral("bin/") + page), arguments);
            QVERIFY2(help.exitCode == 0, qPrintable(arguments.join(u' ')));
            const QString helpText = QString::fromUtf8(help.out);
            const QString usage = helpText.section(QLatin1Char('\n'), 0, 0);
            QVERIFY2(usage.startsWith(QStringLiteral("Usage: ")), qPrintable(usage));
            if (arguments.size() > 1) // a command's usage heads its section
                QVERIFY2(text.contains(QStringLiteral("\n   ") + usage.mid(7).trimmed() +
                                       QLatin1Char('\n')),
                         qPrintable(usage));
            for (const QString& option : optionsIn(helpText, 2))
                QVERIFY2(pageOptions.contains(option),
                         qPrintable(QStringLiteral("%1 (%2) is not in %3(1)")
                                        .arg(option, arguments.join(u' '), page)));
        }
    }

private:
    QTemporaryDir m_prefix;
};

QTEST_GUILESS_MAIN(TestInstallTree)
#include "tst_install_tree.moc"
