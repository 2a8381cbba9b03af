// "Add lab targets": the targets and the lab one choice of modes and a server makes, checked
// against what the session file and the sweep's `lab sandbox` command accept.
#include "app/lab/lab_targets.h"
#include "app/session/session_json.h"
#include "app/sweep/lab_sandbox_command.h"

#include <QTest>

using namespace loadscope;
using app::lab::LabMode;
using app::lab::LabServerKind;

Q_DECLARE_METATYPE(LabServerKind)

namespace {

app::Session sessionWithOneTarget() {
    app::Session session;
    session.targets.push_back(app::makeTarget(QStringLiteral("own"), app::DeploymentMode::Host, 0));
    return session;
}

std::vector<const app::Target*> labTargetsOf(const app::Session& session) {
    std::vector<const app::Target*> targets;
    for (const app::Target& target : session.targets) {
        if (target.lab)
            targets.push_back(&target);
    }
    return targets;
}

} // namespace

class TestLabTargets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void oneTargetPerModeInTheNextColours() {
        const app::Session session = sessionWithOneTarget();
        const auto edit = app::lab::labTargets(
            session, {LabServerKind::Echo, {LabMode::Nat, LabMode::Ipvlan, LabMode::Nat}, 9000});
        QVERIFY2(edit.ok(), edit.ok() ? "" : qPrintable(edit.error().message));
        // The repeated NAT counts once.
        QCOMPARE(edit->targets.size(), size_t(2));
        const app::Target& nat = edit->targets[0];
        const app::Target& ipvlan = edit->targets[1];
        QCOMPARE(nat.name, QStringLiteral("container-nat"));
        QCOMPARE(nat.mode, app::DeploymentMode::ContainerNat);
        QVERIFY(nat.lab ==
                (app::LabPlacement{QStringLiteral("container-nat"), QStringLiteral("echo"), {}}));
        QCOMPARE(nat.protocol, app::TargetProtocol::TcpRr);
        QVERIFY(!nat.address.isEmpty()); // valid before the lab says where it serves
        // ipvlan is one of the session's modes, as every lab mode is.
        QCOMPARE(ipvlan.name, QStringLiteral("ipvlan"));
        QCOMPARE(ipvlan.mode, app::DeploymentMode::Ipvlan);
        QCOMPARE(ipvlan.modeLabel(), QStringLiteral("ipvlan"));
        QCOMPARE(ipvlan.lab->mode, QStringLiteral("ipvlan"));
        // The session has one target: the new ones take the palette's second and third colour.
        QCOMPARE(nat.colour, app::defaultTargetColours()[1]);
        QCOMPARE(ipvlan.colour, app::defaultTargetColours()[2]);
        QVERIFY(nat.id != ipvlan.id && !nat.id.isNull());
        QCOMPARE(edit->lab.mtu, 9000);
        QCOMPARE(edit->lab.modes,
                 (std::vector<QString>{QStringLiteral("container-nat"), QStringLiteral("ipvlan")}));
        // Lab points are profiled from then on; the rest of the plan is the session's.
        QVERIFY(!session.plan.profile);
        QVERIFY(edit->plan.profile);
        app::SweepPlan unprofiled = edit->plan;
        unprofiled.profile = false;
        QVERIFY(unprofiled == session.plan);
    }

    void theTargetsAreOnesTheSweepAndTheFileAccept() {
        app::Session session = sessionWithOneTarget();
        const auto edit = app::lab::labTargets(
            session, {LabServerKind::Nginx, {LabMode::Host, LabMode::Bridge}, 1400});
        QVERIFY(edit.ok());
        for (const app::Target& target : edit->targets)
            session.targets.push_back(target);
        session.lab = edit->lab;
        const auto command =
            app::labSandboxCommand(QStringLiteral("cli"), session, labTargetsOf(session));
        QVERIFY2(command.ok(), command.ok() ? "" : qPrintable(command.error().message));
        QCOMPARE(command->join(QLatin1Char(' ')),
                 QStringLiteral("cli lab sandbox --mtu 1400 --modes host,linux-bridge --server "
                                "nginx -- cli lab agent"));
        const auto back = app::sessionFromJson(app::sessionToJson(session));
        QVERIFY2(back.ok(), back.ok() ? "" : qPrintable(back.error().message));
        QVERIFY(back->targets == session.targets);
        QVERIFY(back->lab == session.lab);
    }

    void theSessionsLabKeepsItsCpusAndModes() {
        app::Session session = sessionWithOneTarget();
        session.targets[0].lab =
            app::LabPlacement{QStringLiteral("host"), QStringLiteral("http"), {}};
        session.lab =
            app::LabSetup{1500, QStringLiteral("0"), QStringLiteral("1"), {QStringLiteral("host")}};
        const auto edit = app::lab::labTargets(
            session, {LabServerKind::Http, {LabMode::Macvlan, LabMode::Host}, 576});
        QVERIFY(edit.ok());
        // host has its lab target already: only macvlan's is added.
        QCOMPARE(edit->targets.size(), size_t(1));
        QCOMPARE(edit->targets[0].lab->mode, QStringLiteral("macvlan"));
        QCOMPARE(edit->targets[0].http.url.startsWith(QStringLiteral("http://")), true);
        QVERIFY(edit->lab == (app::LabSetup{576,
                                            QStringLiteral("0"),
                                            QStringLiteral("1"),
                                            {QStringLiteral("host"), QStringLiteral("macvlan")}}));
    }

    // Adding the lab's modes again (the dialog ticked as it was) adds no second "host" beside
    // the first: a mode keeps its one lab target, whatever the targets are named.
    void aModeWithItsLabTargetIsNotAddedAgain() {
        app::Session session;
        const auto first = app::lab::labTargets(
            session, {LabServerKind::Echo, {LabMode::Host, LabMode::UserlandProxy}, 1500});
        QVERIFY(first.ok());
        for (const app::Target& target : first->targets)
            session.targets.push_back(target);
        session.targets[0].name = QStringLiteral("bare metal");
        session.lab = first->lab;
        QCOMPARE(app::lab::labTargetOf(session, LabMode::Host), &session.targets[0]);
        QCOMPARE(app::lab::labTargetOf(session, LabMode::Nat), nullptr);

        const auto again = app::lab::labTargets(
            session,
            {LabServerKind::Echo, {LabMode::Host, LabMode::UserlandProxy, LabMode::Nat}, 1500});
        QVERIFY(again.ok());
        QCOMPARE(again->targets.size(), size_t(1));
        QCOMPARE(again->targets[0].lab->mode, QStringLiteral("container-nat"));

        const auto nothingNew = app::lab::labTargets(
            session, {LabServerKind::Echo, {LabMode::Host, LabMode::UserlandProxy}, 1500});
        QVERIFY(!nothingNew.ok());
        QCOMPARE(nothingNew.error().message,
                 QStringLiteral("the session has a lab target for every chosen mode already: "
                                "host (\u201cbare metal\u201d), userland-proxy "
                                "(\u201cuserland-proxy\u201d)"));
    }

    void theServerGivesTheProtocol_data() {
        QTest::addColumn<LabServerKind>("server");
        QTest::addColumn<QString>("protocol");
        QTest::newRow("http") << LabServerKind::Http << QStringLiteral("http");
        QTest::newRow("nginx") << LabServerKind::Nginx << QStringLiteral("http");
        QTest::newRow("apache") << LabServerKind::Apache << QStringLiteral("http");
        QTest::newRow("memcached") << LabServerKind::Memcached << QStringLiteral("memcache");
        QTest::newRow("redis") << LabServerKind::Redis << QStringLiteral("redis");
        QTest::newRow("echo") << LabServerKind::Echo << QStringLiteral("tcp-rr");
        QTest::newRow("sink") << LabServerKind::Sink << QStringLiteral("tcp-stream");
    }
    void theServerGivesTheProtocol() {
        QFETCH(LabServerKind, server);
        QFETCH(QString, protocol);
        const auto edit = app::lab::labTargets({}, {server, {LabMode::Host}, 1500});
        QVERIFY(edit.ok());
        QCOMPARE(app::targetProtocolId(edit->targets.front().protocol), protocol);
        QCOMPARE(edit->targets.front().lab->server, app::lab::labServerKindId(server));
    }

    void refusalsAreOneLine_data() {
        QTest::addColumn<int>("mtu");
        QTest::addColumn<bool>("noModes");
        QTest::addColumn<bool>("otherServer");
        QTest::addColumn<QString>("says");
        QTest::newRow("no modes") << 1500 << true << false << QStringLiteral("no lab modes");
        QTest::newRow("mtu 100") << 100 << false << false << QStringLiteral("MTU 100");
        QTest::newRow("mtu 575") << 575 << false << false << QStringLiteral("MTU 575");
        QTest::newRow("mtu 65536") << 65536 << false << false << QStringLiteral("MTU 65536");
        QTest::newRow("other server") << 1500 << false << true << QStringLiteral("run memcached");
    }
    void refusalsAreOneLine() {
        QFETCH(int, mtu);
        QFETCH(bool, noModes);
        QFETCH(bool, otherServer);
        QFETCH(QString, says);
        app::Session session = sessionWithOneTarget();
        if (otherServer)
            session.targets[0].lab =
                app::LabPlacement{QStringLiteral("host"), QStringLiteral("memcached"), {}};
        app::lab::LabTargetChoice choice{LabServerKind::Http, {LabMode::Nat}, mtu};
        if (noModes)
            choice.modes.clear();
        const auto edit = app::lab::labTargets(session, choice);
        QVERIFY(!edit.ok());
        QVERIFY2(edit.error().message.contains(says), qPrintable(edit.error().message));
        QVERIFY(!edit.error().message.contains(QLatin1Char('\n')));
    }

    // The client's placement is the lab's, as the MTU: a choice of server-host carries to the
    // session's lab, and a mode that cannot have it, added now or there before, is refused in
    // one line that names it.
    void clientPlacementIsTheLabsAndRefusedForAModeThatCannotHaveIt() {
        app::Session session;
        app::lab::LabTargetChoice choice{LabServerKind::Http,
                                         {LabMode::Host, LabMode::Nat},
                                         1500,
                                         app::LabClientPlacement::ServerHost};
        const auto edit = app::lab::labTargets(session, choice);
        QVERIFY2(edit.ok(), edit.ok() ? "" : qPrintable(edit.error().message));
        QCOMPARE(edit->lab.client, app::LabClientPlacement::ServerHost);
        choice.modes = {LabMode::OverlayVxlan};
        const auto refused = app::lab::labTargets(session, choice);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.contains(QStringLiteral("overlay-vxlan cannot have it")),
                 qPrintable(refused.error().message));
        // A session's macvlan target, then server-host chosen for another mode.
        choice.client = app::LabClientPlacement::Wire;
        choice.modes = {LabMode::Macvlan};
        auto wire = app::lab::labTargets(session, choice);
        QVERIFY(wire.ok());
        session.targets = wire->targets;
        session.lab = wire->lab;
        choice.client = app::LabClientPlacement::ServerHost;
        choice.modes = {LabMode::Host};
        const auto mixed = app::lab::labTargets(session, choice);
        QVERIFY(!mixed.ok());
        QVERIFY2(mixed.error().message.contains(QStringLiteral("macvlan cannot have it")),
                 qPrintable(mixed.error().message));
        QVERIFY(!mixed.error().message.contains(QLatin1Char('\n')));
    }
};

QTEST_GUILESS_MAIN(TestLabTargets)
#include "tst_lab_targets.moc"
