// The window's side of other hosts: the Hosts dialog (its table stored in
// the document, refused in one line when a target still names a removed
// host, and Check against a real test sshd on 127.0.0.1), the target
// editor's host fields, the lab dialog's "Build on", and the run log's note
// of each host's part.
#include "app/session/session_document.h"
#include "required_here.h"
#include "tests/app/ssh_test_hosts.h"
#include "ui/run/run_log_model.h"
#include "ui/shell/hosts_dialog.h"
#include "ui/shell/lab_targets_dialog.h"
#include "ui/shell/target_editor.h"

#include <QComboBox>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

namespace app = loadscope::app;
namespace testing = loadscope::testing;
using loadscope::ui::HostsDialog;
using loadscope::ui::LabTargetsDialog;
using loadscope::ui::RunLogModel;
using loadscope::ui::TargetEditor;

namespace {

app::Host host(const QString& name, const QString& destination) {
    app::Host h;
    h.name = name;
    h.destination = destination;
    return h;
}

} // namespace

class TstHostsWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dialogStoresTheHosts() {
        app::SessionDocument document;
        HostsDialog dialog(&document);
        dialog.addHost(host(QStringLiteral("load1"), QStringLiteral("bench@10.0.0.5")));
        dialog.addHost(host(QStringLiteral("db"), QStringLiteral("db.internal:2222")));
        dialog.show();
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(document.session().hosts.size(), size_t(2));
        QCOMPARE(document.session().hosts[1].destination, QStringLiteral("db.internal:2222"));
        QCOMPARE(document.session().hosts[1].command, QStringLiteral("loadscope-cli"));
        QVERIFY(document.isModified());
    }

    void dialogRefusesWhatWouldBreakTheSession_data() {
        QTest::addColumn<QString>("destination");
        QTest::addColumn<bool>("dropHost");
        QTest::addColumn<QString>("says");
        QTest::newRow("an option as destination")
            << "-oProxyCommand=x" << false << "begins with '-'";
        QTest::newRow("a host a target loads from")
            << "ok@host" << true << "target 'web' loads from host 'load1'";
    }
    void dialogRefusesWhatWouldBreakTheSession() {
        QFETCH(QString, destination);
        QFETCH(bool, dropHost);
        QFETCH(QString, says);
        app::Session session;
        session.hosts = {host(QStringLiteral("load1"), QStringLiteral("bench@10.0.0.5"))};
        app::Target target = app::makeTarget(QStringLiteral("web"), app::DeploymentMode::Host, 0);
        target.loadFrom = {QStringLiteral("load1")};
        session.targets.push_back(target);
        app::SessionDocument document;
        document.reset(session);
        HostsDialog dialog(&document);
        if (dropHost) {
            // The only row renamed: load1 is gone.
            auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("hostsTable"));
            table->item(0, 0)->setText(QStringLiteral("other"));
            table->item(0, 1)->setText(destination);
        } else {
            dialog.addHost(host(QStringLiteral("bad"), destination));
        }
        dialog.show();
        dialog.accept();
        QVERIFY(dialog.isVisible()); // stays open
        const QString error = dialog.findChild<QLabel*>(QStringLiteral("hostsError"))->text();
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY(document.session().hosts == session.hosts);
    }

    // Check reaches each host as a sweep would: a real sshd, a key it takes
    // and one it refuses.
    void checkSaysWhatEachHostAnswered() {
        if (const QString why = testing::sshdUnavailable(); !why.isEmpty())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("sshd"), why);
        QTemporaryDir dir;
        testing::SshTestKeys keys(dir.path());
        const quint16 port = testing::freeLoopbackPort();
        testing::TestSshd sshd(keys, QStringLiteral("window"),
                               QStringLiteral("127.0.0.1:%1").arg(port), false);
        QVERIFY(sshd.waitListening(port));
        keys.addHost(QStringLiteral("good"), QStringLiteral("127.0.0.1"), port);
        keys.addHost(QStringLiteral("stranger"), QStringLiteral("127.0.0.1"), port, true);
        app::SessionDocument document;
        HostsDialog dialog(&document);
        app::SshOptions ssh;
        ssh.configFile = keys.clientConfig();
        dialog.setSshOptions(ssh);
        app::Host good = host(QStringLiteral("good"), QStringLiteral("good"));
        good.command = qEnvironmentVariable("LOADSCOPE_CLI");
        dialog.addHost(good);
        app::Host stranger = host(QStringLiteral("stranger"), QStringLiteral("stranger"));
        stranger.command = good.command;
        dialog.addHost(stranger);
        dialog.show();
        QSignalSpy finished(&dialog, &HostsDialog::checkFinished);
        dialog.check();
        QVERIFY(dialog.isChecking()); // returned at once: the window goes on
        QCOMPARE(dialog.statusOf(0), QStringLiteral("checking…"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60'000);
        QVERIFY2(dialog.statusOf(0).contains(QStringLiteral("reachable, authenticated, loadscope")),
                 qPrintable(dialog.statusOf(0)));
        QVERIFY2(dialog.statusOf(0).contains(QStringLiteral("; lab: ")),
                 qPrintable(dialog.statusOf(0)));
        QVERIFY2(dialog.statusOf(1).contains(QStringLiteral("reachable, not authenticated")),
                 qPrintable(dialog.statusOf(1)));
    }

    void editorHostFields() {
        app::Session session;
        session.hosts = {host(QStringLiteral("load1"), QStringLiteral("a@10.0.0.5")),
                         host(QStringLiteral("load2"), QStringLiteral("b@10.0.0.6"))};
        app::Target target = app::makeTarget(QStringLiteral("web"), app::DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://10.0.0.7/");
        session.targets.push_back(target);
        app::SessionDocument document;
        document.reset(session);
        TargetEditor editor(&document);
        editor.setTargetId(target.id);
        auto* loadFrom = editor.findChild<QLineEdit*>(QStringLiteral("loadFromEdit"));
        auto* serverHost = editor.findChild<QLineEdit*>(QStringLiteral("serverHostEdit"));
        QVERIFY(loadFrom && serverHost);
        loadFrom->setText(QStringLiteral("load1, load2"));
        Q_EMIT loadFrom->textEdited(loadFrom->text());
        serverHost->setText(QStringLiteral("load2"));
        Q_EMIT serverHost->textEdited(serverHost->text());
        const app::Target* edited = document.session().findTarget(target.id);
        QCOMPARE(edited->loadFrom,
                 (std::vector<QString>{QStringLiteral("load1"), QStringLiteral("load2")}));
        QCOMPARE(edited->serverHost, QStringLiteral("load2"));
        // A host the session lacks: the field says so, the document keeps the last good one.
        loadFrom->setText(QStringLiteral("load3"));
        Q_EMIT loadFrom->textEdited(loadFrom->text());
        QVERIFY(!editor.isValid());
        QVERIFY(editor.findChild<QLabel*>(QStringLiteral("loadFromError"))
                    ->text()
                    .contains(QStringLiteral("no host 'load3'")));
        QCOMPARE(document.session().findTarget(target.id)->loadFrom.size(), size_t(2));
    }

    // "Build on" a host: its lab check's answer fills the list; the lab it adds names it.
    void labDialogBuildsOnAHost() {
        app::Session session;
        session.hosts = {host(QStringLiteral("big"), QStringLiteral("root@10.0.0.32"))};
        app::SessionDocument document;
        document.reset(session);
        LabTargetsDialog dialog(&document);
        auto* hosts = dialog.findChild<QComboBox*>(QStringLiteral("labHostCombo"));
        QCOMPARE(hosts->count(), 2);
        QCOMPARE(hosts->itemData(1).toString(), QStringLiteral("big"));
        app::HostCheck checked;
        checked.host = session.hosts[0];
        checked.agentAnswered = true;
        checked.lab = QJsonObject{
            {QStringLiteral("modes"),
             QJsonArray{QJsonObject{{QStringLiteral("mode"), QStringLiteral("host")},
                                    {QStringLiteral("available"), true},
                                    {QStringLiteral("reason"), QString()}},
                        QJsonObject{{QStringLiteral("mode"), QStringLiteral("ovs-bridge")},
                                    {QStringLiteral("available"), false},
                                    {QStringLiteral("reason"), QStringLiteral("no ovs there")}}}},
            {QStringLiteral("servers"),
             QJsonArray{QJsonObject{{QStringLiteral("server"), QStringLiteral("http")},
                                    {QStringLiteral("available"), true},
                                    {QStringLiteral("detail"), QStringLiteral("embedded")}}}}};
        const auto availability = LabTargetsDialog::availabilityOf(checked);
        QVERIFY(availability.modes);
        QCOMPARE(availability.modes->size(), size_t(2));
        QVERIFY(!availability.modes->at(1).available);
        QCOMPARE(availability.modes->at(1).reason, QStringLiteral("no ovs there"));
        hosts->blockSignals(true); // no real ssh here: the answer is given by hand
        hosts->setCurrentIndex(1);
        hosts->blockSignals(false);
        dialog.setAvailability(availability);
        dialog.setModeChecked(app::lab::LabMode::Host, true);
        dialog.show();
        dialog.accept();
        QVERIFY(document.session().lab);
        QCOMPARE(document.session().lab->host, QStringLiteral("big"));
        QCOMPARE(document.session().targets.size(), size_t(1));
    }

    void runLogNotesEachHostsPart() {
        app::PointResult part;
        part.complete = 1000;
        part.durationSeconds = 2;
        part.threads = 1;
        part.clientCpuSeconds = 1.9; // 95 % of its thread: saturated
        app::AgentShare share;
        share.host = QStringLiteral("load1");
        share.result = {part};
        app::AgentShare failed;
        failed.host = QStringLiteral("load2");
        failed.error = QStringLiteral("host 'load2': ssh: gone");
        app::PointResult merged = part;
        merged.agents = {share, failed};
        RunLogModel model;
        model.appendFinished(app::SweepPoint{}, 1, QStringLiteral("web"), Qt::black, merged);
        const QString note =
            model.data(model.index(0, RunLogModel::NoteColumn), Qt::DisplayRole).toString();
        QVERIFY2(note.contains(QStringLiteral("hosts: load1 500 req/s, CPU 95 % saturated; "
                                              "load2 failed")),
                 qPrintable(note));
    }
};

QTEST_MAIN(TstHostsWindow)
#include "tst_hosts_window.moc"
