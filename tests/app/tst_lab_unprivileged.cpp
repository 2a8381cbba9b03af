// The lab as a user without privileges, where user namespaces allow it: with only the caller's
// uid mapped, and with subordinate ids (/etc/subuid, newuidmap) as rootless containers map them.
#include "app/lab/subordinate_ids.h"
#include "lab_sandbox_support.h"

#include <QSet>
#include <QStandardPaths>
#include <pwd.h>
#include <unistd.h>

using namespace loadscope::testing;
using loadscope::app::lab::subordinateRange;

namespace {

// setpriv and its arguments that run loadscope-cli as nobody; empty where that cannot be done.
inline QStringList nobodyCommand() {
    const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
    if (geteuid() != 0 || setpriv.isEmpty())
        return {};
    return {setpriv, QStringLiteral("--reuid=nobody"), QStringLiteral("--regid=nogroup"),
            QStringLiteral("--clear-groups"), cliPath()};
}

// The ids of nobody's range granted for one test: /etc/subuid and /etc/subgid as they were
// come back, byte for byte, when it ends. Empty files are Debian's default.
class NobodyGrantedIds {
public:
    static constexpr uint64_t kStart = 3'000'000'000;
    NobodyGrantedIds() {
        for (const char* path : {"/etc/subuid", "/etc/subgid"}) {
            QFile file(QString::fromLatin1(path));
            m_files.push_back({QString::fromLatin1(path),
                               file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray(),
                               file.exists()});
        }
        for (const Saved& saved : m_files) {
            QFile file(saved.path);
            m_granted = file.open(QIODevice::Append) &&
                        file.write(QByteArrayLiteral("nobody:3000000000:65536\n")) > 0 &&
                        file.flush() && m_granted;
        }
    }
    ~NobodyGrantedIds() {
        for (const Saved& saved : m_files) {
            if (!saved.existed) {
                QFile::remove(saved.path);
                continue;
            }
            QFile file(saved.path);
            if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
                file.write(saved.content);
        }
    }
    bool granted() const { return m_granted; }

private:
    struct Saved {
        QString path;
        QByteArray content;
        bool existed = false;
    };
    std::vector<Saved> m_files;
    bool m_granted = true;
};

// `lab check --json` as the user `as` makes us (setpriv's arguments); empty when it could not.
QJsonObject labCheckAs(const QString& setpriv, const QStringList& as) {
    return QJsonDocument::fromJson(
               commandOutput(setpriv,
                             as + QStringList{QStringLiteral("lab"), QStringLiteral("check"),
                                              QStringLiteral("--json")}))
        .object();
}

// The uids the processes of a running lab have as the machine sees them.
QSet<uint> labUids() {
    QSet<uint> uids;
    for (const pid_t pid : labProcesses()) {
        const QByteArray status = fileText(QStringLiteral("/proc/%1/status").arg(pid));
        const qsizetype at = status.indexOf("\nUid:");
        if (at >= 0)
            uids.insert(status.mid(at + 5, status.indexOf('\n', at + 1) - at - 5)
                            .simplified()
                            .split(' ')
                            .value(1)
                            .toUInt());
    }
    return uids;
}

} // namespace

class TestLabUnprivileged : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
    }

    // Checked after every test function: nothing of a lab is left in the machine's namespace.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // Apache's workers drop to www-data, which an unprivileged sandbox without subordinate ids
    // (one uid mapped) does not have: one line saying so, from the check and the sandbox alike.
    void apacheWithoutSubordinateIdsIsRefused() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QStringList asNobody = nobodyCommand();
        if (asNobody.isEmpty())
            QSKIP("needs root and setpriv to become nobody");
        if (subordinateRange("/etc/subuid", "nobody", 65534))
            QSKIP("/etc/subuid grants nobody ids here");
        const QString setpriv = asNobody.takeFirst();
        const QJsonObject check = labCheckAs(setpriv, asNobody);
        if (check.isEmpty())
            QSKIP("no sandbox for nobody");
        // Installed, the reason is the privilege; missing, it names the package.
        const QByteArray expected =
            m_lab.servers.at(QStringLiteral("apache")).isEmpty() ? "www-data" : "apache2";
        QString reason;
        for (const QJsonValue& server : check.value(u"servers").toArray()) {
            if (server[u"server"] == QStringLiteral("apache")) {
                QVERIFY(!server[u"available"].toBool());
                reason = server[u"detail"].toString();
            }
        }
        QVERIFY2(reason.contains(QString::fromLatin1(expected)), qPrintable(reason));
        QProcess process;
        process.start(setpriv,
                      asNobody + QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                             QStringLiteral("--modes"), QStringLiteral("host"),
                                             QStringLiteral("--server"), QStringLiteral("apache"),
                                             QStringLiteral("--"), QStringLiteral("true")});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardOutput().isEmpty());
        const QByteArray err = process.readAllStandardError().trimmed();
        QCOMPARE(err.count('\n'), 0);
        QVERIFY2(err.contains("server apache: ") && err.contains(expected), err.constData());
        QVERIFY(labProcesses().empty());
    }

    // As a user without privileges, where user namespaces allow it; with the client across the
    // wire, and on the server host (whose modes write route_localnet and output-hook rules in
    // the sandbox's namespaces, which its own root may).
    void unprivilegedLab_data() {
        QTest::addColumn<QString>("placement");
        QTest::newRow("wire") << QStringLiteral("wire");
        QTest::newRow("server-host") << QStringLiteral("server-host");
    }
    void unprivilegedLab() {
        QFETCH(QString, placement);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QStringList asNobody = nobodyCommand();
        if (asNobody.isEmpty())
            QSKIP("needs root and setpriv to become nobody");
        const QString setpriv = asNobody.takeFirst();
        const QByteArray check = commandOutput(
            setpriv, asNobody + QStringList{QStringLiteral("lab"), QStringLiteral("check"),
                                            QStringLiteral("--json")});
        const QJsonObject modes = QJsonDocument::fromJson(check).object();
        if (modes.isEmpty())
            QSKIP(qPrintable(QStringLiteral("no sandbox for nobody: %1")
                                 .arg(QString::fromUtf8(check.trimmed()))));
        // The Kubernetes node's paths as well: the check names each, with what it mimics and,
        // where it cannot be built, why; the sandbox builds those it can.
        const QStringList& kubernetes = kKubernetesModes;
        QStringList wanted{QStringLiteral("host")};
        int named = 0;
        for (const QJsonValue& mode : modes.value(u"modes").toArray()) {
            const QString id = mode[u"mode"].toString();
            if (kubernetes.contains(id)) {
                ++named;
                QVERIFY2(mode[u"mimics"].toString().contains(u"leaves out"), qPrintable(id));
                QVERIFY2(mode[u"available"].toBool() || !mode[u"reason"].toString().isEmpty(),
                         qPrintable(id));
            }
            // The check says what a client on the server host reaches, or why not.
            const bool placed = placement == QLatin1String("wire") ||
                                mode[u"serverHostRefused"].toString().isEmpty();
            QVERIFY2(!mode[u"serverHost"].toString().isEmpty() ||
                         !mode[u"serverHostRefused"].toString().isEmpty(),
                     qPrintable(id));
            if ((id == QStringLiteral("container-nat") || kubernetes.contains(id) ||
                 (placement == QLatin1String("server-host") &&
                  id == QStringLiteral("userland-proxy"))) &&
                mode[u"available"].toBool() && placed)
                wanted.append(id);
        }
        QCOMPARE(named, int(kubernetes.size()));
        LabProcess lab(asNobody.mid(0, 3) +
                           QStringList{cliPath(), QStringLiteral("lab"), QStringLiteral("sandbox"),
                                       QStringLiteral("--client-placement"), placement,
                                       QStringLiteral("--modes"), wanted.join(QLatin1Char(',')),
                                       QStringLiteral("--server"), QStringLiteral("http")} +
                           fetchCommand(100),
                       setpriv);
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), wanted.size());
        QCOMPARE(built.value(u"clientPlacement").toString(), placement);
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QCOMPARE(countMatches(outcome.out, QStringLiteral("^Complete requests:\\s+100$")),
                 int(wanted.size()));
    }

    // With a range of subordinate ids, an unprivileged sandbox maps them above its root, as
    // rootless Podman does: Apache's workers become www-data inside, which the machine sees as
    // nobody's range (its uid 33 there is the range's start + 32), and the document arrives.
    void apacheWithSubordinateIdsServes() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QStringList asNobody = nobodyCommand();
        if (asNobody.isEmpty())
            QSKIP("needs root and setpriv to become nobody");
        if (QStandardPaths::findExecutable(QStringLiteral("newuidmap")).isEmpty())
            QSKIP("newuidmap is not installed (Debian package uidmap)");
        if (!m_lab.servers.at(QStringLiteral("apache")).isEmpty())
            QSKIP(qPrintable(m_lab.servers.at(QStringLiteral("apache"))));
        if (subordinateRange("/etc/subuid", "nobody", 65534))
            QSKIP("/etc/subuid grants nobody ids already: its range is not this test's");
        NobodyGrantedIds ids;
        QVERIFY(ids.granted());
        const QString setpriv = asNobody.takeFirst();
        const QJsonObject check = labCheckAs(setpriv, asNobody);
        if (check.isEmpty())
            QSKIP("no sandbox for nobody");
        for (const QJsonValue& server : check.value(u"servers").toArray()) {
            if (server[u"server"] == QStringLiteral("apache"))
                QVERIFY2(server[u"available"].toBool(), qPrintable(server[u"detail"].toString()));
        }
        LabProcess lab(asNobody.mid(0, 3) +
                           QStringList{cliPath(), QStringLiteral("lab"), QStringLiteral("sandbox"),
                                       QStringLiteral("--modes"), QStringLiteral("host"),
                                       QStringLiteral("--server"), QStringLiteral("apache"),
                                       QStringLiteral("--server-opt"),
                                       QStringLiteral("size=1000")} +
                           fetchCommand(100),
                       setpriv);
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const passwd* wwwData = getpwnam("www-data");
        QVERIFY(wwwData);
        // The lab is ready once Apache's port accepts, which its parent does before the
        // workers it forks have changed to www-data: wait for them.
        const uint wwwDataOutside = uint(NobodyGrantedIds::kStart + wwwData->pw_uid - 1);
        QTRY_VERIFY2_WITH_TIMEOUT(
            labUids().contains(wwwDataOutside),
            qPrintable(QStringLiteral("uids of the lab: %1").arg(labUids().values().size())),
            10000);
        QVERIFY(!labUids().contains(0)); // nothing of an unprivileged lab is root outside it
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QCOMPARE(countMatches(outcome.out, QStringLiteral("^Complete requests:\\s+100$")), 1);
        QCOMPARE(countMatches(outcome.out, QStringLiteral("^Failed requests:\\s+0$")), 1);
        QCOMPARE(countMatches(outcome.out, QStringLiteral("^Document Length:\\s+1000 bytes$")), 1);
        QVERIFY(labProcesses().empty());
    }

private:
    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabUnprivileged)
#include "tst_lab_unprivileged.moc"
