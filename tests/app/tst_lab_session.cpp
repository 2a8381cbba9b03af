// Lab targets in sessions: stored and read back, refused in one line when
// wrong, and turned into the one `lab sandbox ... -- lab agent` command.
#include "app/session/session_json.h"
#include "app/sweep/lab_sandbox_command.h"

#include <QJsonArray>
#include <QTest>

using namespace loadscope;

namespace {

app::Target labTarget(const QString& mode, const QString& server, int index) {
    app::Target target = app::makeTarget(mode, app::DeploymentMode::Host, index);
    target.http.url = QStringLiteral("http://lab/index.html");
    target.lab =
        app::LabPlacement{mode, server, {{QStringLiteral("size"), QStringLiteral("4897")}}};
    return target;
}

app::Session labSession() {
    app::Session session;
    session.name = QStringLiteral("lab");
    session.targets.push_back(labTarget(QStringLiteral("host"), QStringLiteral("nginx"), 0));
    session.targets.push_back(
        labTarget(QStringLiteral("container-nat"), QStringLiteral("nginx"), 1));
    session.targets.push_back(labTarget(QStringLiteral("host"), QStringLiteral("nginx"), 2));
    session.lab = app::LabSetup{9000,
                                QStringLiteral("0"),
                                QStringLiteral("1"),
                                {QStringLiteral("host"), QStringLiteral("container-nat")}};
    return session;
}

std::vector<const app::Target*> pointers(const app::Session& session) {
    std::vector<const app::Target*> targets;
    for (const app::Target& target : session.targets)
        targets.push_back(&target);
    return targets;
}

} // namespace

class TestLabSession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void labSessionRoundTrips() {
        const app::Session session = labSession();
        const auto back = app::sessionFromJson(app::sessionToJson(session));
        QVERIFY2(back.ok(), back.ok() ? "" : qPrintable(back.error().message));
        QVERIFY(back->lab == session.lab);
        QCOMPARE(back->targets.size(), session.targets.size());
        for (size_t i = 0; i < session.targets.size(); ++i)
            QVERIFY(back->targets[i] == session.targets[i]);
        QVERIFY(back->unknownFields.isEmpty());
        QVERIFY(back->targets[0].unknownFields.isEmpty());
    }

    void sessionWithoutLabReadsAsBefore() {
        app::Session plain;
        plain.targets.push_back(
            app::makeTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 0));
        const QJsonObject json = app::sessionToJson(plain);
        QVERIFY(!json.contains(QStringLiteral("lab")));
        QVERIFY(!json.value(QStringLiteral("targets"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .contains(QStringLiteral("lab")));
        const auto back = app::sessionFromJson(json);
        QVERIFY(back.ok());
        QVERIFY(!back->lab);
        QVERIFY(!back->targets[0].lab);
    }

    void badLabIsOneLine_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("names");
        QTest::newRow("mode") << "mode" << QJsonValue(QStringLiteral("warp"))
                              << "targets[0].lab.mode";
        QTest::newRow("server") << "server" << QJsonValue(QStringLiteral("iis"))
                                << "targets[0].lab.server";
        QTest::newRow("option") << "serverOptions"
                                << QJsonValue(QJsonArray{
                                       QJsonObject{{QStringLiteral("key"), QStringLiteral("a=b")},
                                                   {QStringLiteral("value"), QStringLiteral("c")}}})
                                << "targets[0].lab.serverOptions[0].key";
        // The lab's rule for each option, on load (each was accepted and then
        // refused when a sweep started, without a field).
        const auto option = [](const QString& key, const QString& value) {
            return QJsonValue(QJsonArray{
                QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("value"), value}}});
        };
        QTest::newRow("negative size")
            << "serverOptions" << option(QStringLiteral("size"), QStringLiteral("-1"))
            << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("configuration in a value")
            << "serverOptions" << option(QStringLiteral("size"), QStringLiteral("1;\nuser root;"))
            << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("unknown option")
            << "serverOptions" << option(QStringLiteral("user"), QStringLiteral("root"))
            << "targets[0].lab.serverOptions[0].key";
        QTest::newRow("a document the lab cannot start in time")
            << "serverOptions" << option(QStringLiteral("size"), QStringLiteral("1073741824"))
            << "targets[0].lab.serverOptions[0].value";
    }

    void badLabCpusAreOneLine_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("cpus");
        QTest::newRow("client letters") << "clientCpus"
                                        << "a-b";
        QTest::newRow("server reversed range") << "serverCpus"
                                               << "3-1";
        QTest::newRow("client negative") << "clientCpus"
                                         << "-1";
    }

    // A lab's CPU lists are checked on load, as the sandbox would check them.
    void badLabCpusAreOneLine() {
        QFETCH(QString, key);
        QFETCH(QString, cpus);
        QJsonObject json = app::sessionToJson(labSession());
        QJsonObject lab = json.value(QStringLiteral("lab")).toObject();
        lab.insert(key, cpus);
        json.insert(QStringLiteral("lab"), lab);
        const auto read = app::sessionFromJson(json);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(QStringLiteral("lab.") + key),
                 qPrintable(read.error().message));
        QVERIFY(!read.error().message.contains(QLatin1Char('\n')));
    }

    void badLabIsOneLine() {
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, names);
        QJsonObject json = app::sessionToJson(labSession());
        QJsonArray targets = json.value(QStringLiteral("targets")).toArray();
        QJsonObject target = targets.at(0).toObject();
        QJsonObject lab = target.value(QStringLiteral("lab")).toObject();
        lab.insert(key, value);
        target.insert(QStringLiteral("lab"), lab);
        targets.replace(0, target);
        json.insert(QStringLiteral("targets"), targets);
        const auto read = app::sessionFromJson(json);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(names), qPrintable(read.error().message));
        QVERIFY(!read.error().message.contains(QLatin1Char('\n')));
    }

    // A Redis lab server takes memcached's option, memory=MIB (its maxmemory), by the rule
    // the sandbox applies, and nothing else.
    void redisLabServerTakesMemory_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("refused"); // the field named, empty when accepted
        QTest::newRow("memory") << "memory"
                                << "64"
                                << "";
        QTest::newRow("memory past 64 GiB") << "memory"
                                            << "65537"
                                            << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("a web server's size") << "size"
                                             << "4897"
                                             << "targets[0].lab.serverOptions[0].key";
    }

    void redisLabServerTakesMemory() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, refused);
        app::Session session = labSession();
        session.targets.resize(1);
        app::Target& target = session.targets[0];
        target.protocol = app::TargetProtocol::Redis;
        target.address = QStringLiteral("lab:6379");
        target.lab =
            app::LabPlacement{QStringLiteral("host"), QStringLiteral("redis"), {{key, value}}};
        const auto read = app::sessionFromJson(app::sessionToJson(session));
        if (refused.isEmpty()) {
            QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().message));
            QVERIFY(read->targets[0].lab == target.lab);
            return;
        }
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(refused), qPrintable(read.error().message));
        QVERIFY(!read.error().message.contains(QLatin1Char('\n')));
    }

    // The session refuses at load the wire MTUs the sandbox would refuse at
    // sweep time, so a sweep never fails after its plan has been accepted.
    void labMtuOutsideTheSandboxRangeIsRefused_data() {
        QTest::addColumn<int>("mtu");
        QTest::newRow("below IPv4's minimum reassembly size") << 100;
        QTest::newRow("one below") << 575;
        QTest::newRow("above veth's maximum") << 65536;
    }

    void labMtuOutsideTheSandboxRangeIsRefused() {
        QFETCH(int, mtu);
        QJsonObject json = app::sessionToJson(labSession());
        QJsonObject lab = json.value(QStringLiteral("lab")).toObject();
        lab.insert(QStringLiteral("mtu"), mtu);
        json.insert(QStringLiteral("lab"), lab);
        const auto read = app::sessionFromJson(json);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(QStringLiteral("lab.mtu")),
                 qPrintable(read.error().message));
    }

    void labMtuAtTheSandboxLimitsIsRead() {
        for (const int mtu : {576, 65535}) {
            QJsonObject json = app::sessionToJson(labSession());
            QJsonObject lab = json.value(QStringLiteral("lab")).toObject();
            lab.insert(QStringLiteral("mtu"), mtu);
            json.insert(QStringLiteral("lab"), lab);
            const auto read = app::sessionFromJson(json);
            QVERIFY2(read.ok(), qPrintable(read ? QString() : read.error().message));
            QCOMPARE(read->lab->mtu, mtu);
        }
    }

    void oneSandboxCommandForAllLabTargets() {
        const app::Session session = labSession();
        const auto command = app::labSandboxCommand(QStringLiteral("/bin/loadscope-cli"), session,
                                                    pointers(session));
        QVERIFY2(command.ok(), command.ok() ? "" : qPrintable(command.error().message));
        const QStringList expected =
            QStringLiteral("/bin/loadscope-cli lab sandbox --mtu 9000 --client-cpus 0 "
                           "--server-cpus 1 --modes host,container-nat --server nginx "
                           "--server-opt size=4897 -- /bin/loadscope-cli lab agent")
                .split(QLatin1Char(' '));
        QCOMPARE(*command, expected);
    }

    // The client's placement is stored only when it is not the wire, read back, and passed to
    // the sandbox; a lab whose modes cannot have it is refused when the session is read and
    // again when the sweep would build it, with the mode and why in one line.
    void clientPlacementRoundTripsAndReachesTheSandbox() {
        app::Session session = labSession();
        QVERIFY(!app::sessionToJson(session)[u"lab"].toObject().contains(u"clientPlacement"));
        session.lab->client = app::LabClientPlacement::ServerHost;
        const QJsonObject json = app::sessionToJson(session);
        QCOMPARE(json[u"lab"][u"clientPlacement"].toString(), QStringLiteral("server-host"));
        const auto back = app::sessionFromJson(json);
        QVERIFY2(back.ok(), back.ok() ? "" : qPrintable(back.error().message));
        QVERIFY(back->lab == session.lab);
        const auto command =
            app::labSandboxCommand(QStringLiteral("/bin/loadscope-cli"), *back, pointers(*back));
        QVERIFY2(command.ok(), command.ok() ? "" : qPrintable(command.error().message));
        QVERIFY(command->join(QLatin1Char(' '))
                    .contains(QStringLiteral(" --client-placement server-host ")));
    }

    void clientPlacementAModeCannotHaveIsRefused_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("why");
        QTest::newRow("overlay-vxlan")
            << QStringLiteral("overlay-vxlan") << QStringLiteral("across two nodes");
        QTest::newRow("macvlan") << QStringLiteral("macvlan")
                                 << QStringLiteral("cannot reach its own macvlan child");
        QTest::newRow("ovs-bridge")
            << QStringLiteral("ovs-bridge") << QStringLiteral("userspace switch");
    }
    void clientPlacementAModeCannotHaveIsRefused() {
        QFETCH(QString, mode);
        QFETCH(QString, why);
        app::Session session = labSession();
        session.lab->client = app::LabClientPlacement::ServerHost;
        session.targets[1].lab->mode = mode;
        session.lab->modes[1] = mode;
        const auto read = app::sessionFromJson(app::sessionToJson(session));
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(QStringLiteral("lab.clientPlacement")) &&
                     read.error().message.contains(mode) && read.error().message.contains(why),
                 qPrintable(read.error().message));
        QVERIFY(!read.error().message.contains(QLatin1Char('\n')));
        // A session edited in memory after it was read meets the same rule before the sandbox.
        const auto command =
            app::labSandboxCommand(QStringLiteral("loadscope-cli"), session, pointers(session));
        QVERIFY(!command);
        QVERIFY2(command.error().message.contains(mode) && command.error().message.contains(why),
                 qPrintable(command.error().message));
        // An unknown placement is named with its field.
        QJsonObject json = app::sessionToJson(labSession());
        QJsonObject lab = json[u"lab"].toObject();
        lab.insert(QStringLiteral("clientPlacement"), QStringLiteral("sidecar"));
        json.insert(QStringLiteral("lab"), lab);
        const auto unknown = app::sessionFromJson(json);
        QVERIFY(!unknown);
        QVERIFY2(unknown.error().message.contains(QStringLiteral("lab.clientPlacement")),
                 qPrintable(unknown.error().message));
    }

    void differentServersAreRefused() {
        app::Session session = labSession();
        session.targets[1].lab->server = QStringLiteral("apache");
        const auto command =
            app::labSandboxCommand(QStringLiteral("loadscope-cli"), session, pointers(session));
        QVERIFY(!command);
        QVERIFY2(command.error().message.contains(QStringLiteral("one lab runs one server")),
                 qPrintable(command.error().message));
    }
};

QTEST_GUILESS_MAIN(TestLabSession)
#include "tst_lab_session.moc"
