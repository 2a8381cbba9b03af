#pragma once

// A suite's main that runs it in a private network namespace (unshare -n)
// and proves afterwards that the machine's own network is as it was: the
// links, addresses, routes, named namespaces and nftables rules compared
// before and after, any difference failing the suite with the first line
// that changed. Whatever the suite builds (bridges, veths, hosts' namespaces)
// lives in namespaces that end with it.
//
// Not root (or no unshare): the suite runs where it is and its tests skip
// themselves (privateNetnsUnavailable()).
#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

namespace loadscope::testing {

inline constexpr const char* kInPrivateNetnsVariable = "LOADSCOPE_TEST_IN_PRIVATE_NETNS";

// Why this suite could not be put in a private network namespace; empty when it is in one.
inline QString privateNetnsUnavailable() {
    return qEnvironmentVariableIsSet(kInPrivateNetnsVariable)
               ? QString()
               : QStringLiteral("needs root to run in a private network namespace");
}

inline QByteArray machineNetworkSnapshot() {
    QByteArray snapshot;
    const auto add = [&snapshot](const QString& program, const QStringList& arguments) {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(program, arguments);
        if (!process.waitForFinished(10000)) {
            process.kill();
            process.waitForFinished();
        }
        snapshot += "$ " + program.toUtf8() + ' ' + arguments.join(QLatin1Char(' ')).toUtf8() +
                    '\n' + process.readAll();
    };
    add(QStringLiteral("ip"), {QStringLiteral("-d"), QStringLiteral("link")});
    add(QStringLiteral("ip"), {QStringLiteral("addr")});
    add(QStringLiteral("ip"), {QStringLiteral("route")});
    add(QStringLiteral("ip"), {QStringLiteral("-6"), QStringLiteral("route")});
    add(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("list")});
    if (!QStandardPaths::findExecutable(QStringLiteral("nft"),
                                        {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")})
             .isEmpty())
        add(QStringLiteral("nft"), {QStringLiteral("list"), QStringLiteral("ruleset")});
    return snapshot;
}

template <typename RunSuite> int privateNetnsMain(int argc, char** argv, RunSuite runSuite) {
    if (qEnvironmentVariableIsSet(kInPrivateNetnsVariable) || ::geteuid() != 0)
        return runSuite();
    QCoreApplication app(argc, argv); // for the snapshots' processes
    const QByteArray before = machineNetworkSnapshot();
    // This very executable: /proc/self/exe would be unshare's once it runs.
    QByteArray self = QCoreApplication::applicationFilePath().toLocal8Bit();
    const pid_t child = ::fork();
    if (child == 0) {
        ::setenv(kInPrivateNetnsVariable, "1", 1);
        std::vector<char*> arguments{const_cast<char*>("unshare"), const_cast<char*>("-n"),
                                     const_cast<char*>("--"), self.data()};
        for (int i = 1; i < argc; ++i)
            arguments.push_back(argv[i]);
        arguments.push_back(nullptr);
        ::execvp("unshare", arguments.data());
        std::perror("unshare");
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {
    }
    const QByteArray after = machineNetworkSnapshot();
    if (before != after) {
        const QList<QByteArray> a = before.split('\n');
        const QList<QByteArray> b = after.split('\n');
        qsizetype i = 0;
        while (i < a.size() && i < b.size() && a[i] == b[i])
            ++i;
        std::fprintf(stderr,
                     "FAIL: the machine's own network changed during the suite: before \"%s\", "
                     "after \"%s\"\n",
                     a.value(i).constData(), b.value(i).constData());
        return 1;
    }
    std::fprintf(stderr, "PASS: the machine's own network is as it was\n");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace loadscope::testing

// QTEST_GUILESS_MAIN's body, run in a private network namespace.
#define LOADSCOPE_PRIVATE_NETNS_MAIN(TestObject)                                                   \
    int main(int argc, char** argv) {                                                              \
        return loadscope::testing::privateNetnsMain(argc, argv, [&] {                              \
            QCoreApplication app(argc, argv);                                                      \
            TestObject test;                                                                       \
            QTEST_SET_MAIN_SOURCE_PATH                                                             \
            return QTest::qExec(&test, argc, argv);                                                \
        });                                                                                        \
    }
