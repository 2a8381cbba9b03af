// "Add lab targets…": what the machine cannot build is greyed with its reason, the ticked modes
// become lab targets of the chosen server through the document, and the MTU stays in range.
#include "app/session/session_document.h"
#include "ui/shell/lab_targets_dialog.h"
#include "ui/shell/lab_topology_sketch.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <unistd.h>

using loadscope::app::SessionDocument;
using loadscope::app::lab::LabMode;
using loadscope::app::lab::LabServerKind;
using loadscope::ui::LabAvailability;
using loadscope::ui::LabTargetsDialog;
namespace app = loadscope::app;

namespace {

const QString kOvsReason =
    QStringLiteral("ovs-vswitchd is not installed (Debian package openvswitch-switch)");
const QString kNginxReason = QStringLiteral("nginx is not installed (Debian package nginx-light)");

// A machine that builds every mode but OVS, and runs every server but nginx.
LabAvailability fakeMachine() {
    std::vector<app::lab::ModeAvailability> modes;
    for (LabMode mode : app::lab::labModes())
        modes.push_back(
            {mode, mode != LabMode::Ovs, mode == LabMode::Ovs ? kOvsReason : QString()});
    LabAvailability availability{modes, {}};
    for (LabServerKind kind : app::lab::labServerKinds())
        availability.servers.push_back(
            {kind, kind != LabServerKind::Nginx,
             kind == LabServerKind::Nginx ? kNginxReason : QStringLiteral("v1")});
    return availability;
}

const QString kProxyHow =
    QStringLiteral("embedded proxy; docker-proxy is not installed, Debian package docker.io");
const QString kIpvlanReason = QStringLiteral(
    "the kernel has no ipvlan support (ip link add lab-ti link lab-t0 type ipvlan mode l2: "
    "exit status 2: Error: Unknown device type.)");

// This machine as `lab check` found it while writing: the proxy built by the embedded one, no
// ipvlan, no OVS.
LabAvailability machineLikeThisOne() {
    LabAvailability availability = fakeMachine();
    for (auto& mode : *availability.modes) {
        if (mode.mode == LabMode::UserlandProxy)
            mode.reason = kProxyHow;
        if (mode.mode == LabMode::Ipvlan)
            mode = {LabMode::Ipvlan, false, kIpvlanReason};
    }
    return availability;
}

// Until stop(): every 500 us, the threads of this process that have a child process
// (/proc/self/task/TID/children, which lists the processes a thread itself started).
class ParentThreadWatch {
public:
    ParentThreadWatch()
        : m_thread([this] {
            while (!m_stop.load()) {
                const QDir tasks(QStringLiteral("/proc/self/task"));
                for (const QString& thread : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                    QFile children(tasks.filePath(thread + QStringLiteral("/children")));
                    if (children.open(QIODevice::ReadOnly) &&
                        !children.readAll().trimmed().isEmpty())
                        m_parents.insert(thread.toInt());
                }
                std::this_thread::sleep_for(std::chrono::microseconds(500));
            }
        }) {}
    ~ParentThreadWatch() { stop(); }
    std::set<int> stop() {
        m_stop.store(true);
        if (m_thread.joinable())
            m_thread.join();
        return m_parents;
    }

private:
    std::atomic<bool> m_stop{false};
    std::set<int> m_parents; // written by m_thread alone until it is joined
    std::thread m_thread;
};

} // namespace

class TstLabTargetsDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        m_document = std::make_unique<SessionDocument>();
        m_dialog = std::make_unique<LabTargetsDialog>(m_document.get());
        m_dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_dialog.get()));
    }
    void cleanup() {
        m_dialog.reset();
        m_document.reset();
    }

    void untilTheAnswerTheListSaysItIsChecking() {
        QCOMPARE(modeList()->count(), 1);
        QCOMPARE(modeList()->item(0)->text(),
                 QStringLiteral("Checking what this machine can build…"));
        QVERIFY(!modeList()->item(0)->flags().testFlag(Qt::ItemIsEnabled));
        QVERIFY(!okButton()->isEnabled());
    }

    // The check runs its probes in a process of its own (the lab's sandbox), and the kernel
    // knows which thread started it: a thread of the test watches every thread's children from
    // before the check to its answer, whatever the GUI thread is doing meanwhile.
    void theRealCheckRunsOffTheGuiThread() {
        ParentThreadWatch watch;
        QSignalSpy answered(m_dialog.get(), &LabTargetsDialog::availabilityChanged);
        m_dialog->checkMachine();
        // checkMachine() returned without the answer: the list still says it is checking.
        QVERIFY(m_dialog->isChecking());
        QCOMPARE(modeList()->item(0)->text(),
                 QStringLiteral("Checking what this machine can build…"));
        QTRY_COMPARE_WITH_TIMEOUT(answered.count(), 1, 60000);
        QCOMPARE(modeList()->count(), int(app::lab::labModes().size()));
        const std::set<int> parents = watch.stop();
        QVERIFY2(!parents.empty(), "no thread of this process was seen with a child process");
        QVERIFY2(!parents.contains(int(::gettid())),
                 "the check's processes were started by the GUI thread");
    }

    void anUnavailableModeIsGreyedWithItsReason() {
        m_dialog->setAvailability(fakeMachine());
        QCOMPARE(modeList()->count(), int(app::lab::labModes().size()));
        const QListWidgetItem* ovs = modeItem(QStringLiteral("ovs-bridge"));
        QVERIFY(ovs);
        QVERIFY(!ovs->flags().testFlag(Qt::ItemIsEnabled));
        QVERIFY2(ovs->text().contains(kOvsReason), qPrintable(ovs->text()));
        QVERIFY(ovs->toolTip().contains(QStringLiteral("openvswitch-switch")));
        const QListWidgetItem* nat = modeItem(QStringLiteral("container-nat"));
        QVERIFY(nat && nat->flags().testFlag(Qt::ItemIsEnabled));
        QVERIFY(!nat->text().contains(QStringLiteral("not installed")));
        // Ticking it anyway does nothing.
        m_dialog->setModeChecked(LabMode::Ovs, true);
        QVERIFY(m_dialog->choice().modes.empty());

        auto* servers = m_dialog->findChild<QComboBox*>(QStringLiteral("labServerCombo"));
        auto* model = qobject_cast<QStandardItemModel*>(servers->model());
        const int nginx = servers->findData(int(LabServerKind::Nginx));
        QVERIFY(!model->item(nginx)->isEnabled());
        QVERIFY(servers->itemText(nginx).contains(kNginxReason));
        QVERIFY(model->item(servers->findData(int(LabServerKind::Echo)))->isEnabled());
    }

    void twoTickedModesBecomeTwoLabTargets() {
        m_dialog->setAvailability(fakeMachine());
        m_dialog->setServer(LabServerKind::Echo);
        mtuField()->setValue(9000);
        modeItem(QStringLiteral("host"))->setCheckState(Qt::Checked);
        modeItem(QStringLiteral("container-nat"))->setCheckState(Qt::Checked);
        auto* sketch = m_dialog->findChild<loadscope::ui::LabTopologySketch*>();
        QVERIFY(sketch->modes() == (std::vector<LabMode>{LabMode::Host, LabMode::Nat}));
        QCOMPARE(sketch->mtu(), 9000);
        QVERIFY(okButton()->isEnabled());
        QVERIFY(!m_document->isModified());

        QTest::mouseClick(okButton(), Qt::LeftButton);
        QCOMPARE(m_dialog->result(), int(QDialog::Accepted));
        const app::Session& session = m_document->session();
        QCOMPARE(session.targets.size(), size_t(2));
        QStringList modes;
        for (const app::Target& target : session.targets) {
            QVERIFY(target.lab);
            QCOMPARE(target.lab->server, QStringLiteral("echo"));
            QCOMPARE(target.protocol, app::TargetProtocol::TcpRr);
            modes << target.lab->mode;
        }
        QCOMPARE(modes, (QStringList{QStringLiteral("host"), QStringLiteral("container-nat")}));
        QVERIFY(session.targets[0].colour != session.targets[1].colour);
        QCOMPARE(session.baselineTargetId, session.targets[0].id);
        QVERIFY(session.lab);
        QCOMPARE(session.lab->mtu, 9000);
        QVERIFY(m_document->isModified());
    }

    // The client's placement beside the modes: on the server host it is the session's lab's,
    // and a ticked mode that cannot have it keeps Add disabled, saying why in one line.
    void theClientsPlacementIsTheLabsAndAModeThatCannotHaveItIsRefused() {
        m_dialog->setAvailability(fakeMachine());
        auto* client = m_dialog->findChild<QComboBox*>(QStringLiteral("labClientCombo"));
        QVERIFY(client);
        QCOMPARE(m_dialog->choice().client, app::LabClientPlacement::Wire);
        client->setCurrentIndex(client->findData(int(app::LabClientPlacement::ServerHost)));
        modeItem(QStringLiteral("host"))->setCheckState(Qt::Checked);
        modeItem(QStringLiteral("overlay-vxlan"))->setCheckState(Qt::Checked);
        QVERIFY(!okButton()->isEnabled());
        auto* error = m_dialog->findChild<QLabel*>(QStringLiteral("labTargetsError"));
        QVERIFY2(error->text().contains(QStringLiteral("overlay-vxlan cannot have it")),
                 qPrintable(error->text()));
        // The sketch draws each path from the server host, and says why overlay-vxlan has none.
        auto* sketch = m_dialog->findChild<loadscope::ui::LabTopologySketch*>();
        QVERIFY(sketch->clientOnServerHost());
        QVERIFY2(sketch->accessibleDescription().contains(QStringLiteral("localhost → host")) &&
                     sketch->accessibleDescription().contains(
                         QStringLiteral("no client on the server host: its path is pod to pod")),
                 qPrintable(sketch->accessibleDescription()));
        modeItem(QStringLiteral("overlay-vxlan"))->setCheckState(Qt::Unchecked);
        modeItem(QStringLiteral("userland-proxy"))->setCheckState(Qt::Checked);
        QVERIFY(okButton()->isEnabled());
        QTest::mouseClick(okButton(), Qt::LeftButton);
        QCOMPARE(m_dialog->result(), int(QDialog::Accepted));
        QVERIFY(m_document->session().lab);
        QCOMPARE(m_document->session().lab->client, app::LabClientPlacement::ServerHost);
    }

    void theSketchShowsEachModesPath() {
        m_dialog->setAvailability(fakeMachine());
        auto* sketch = m_dialog->findChild<loadscope::ui::LabTopologySketch*>();
        modeItem(QStringLiteral("container-nat"))->setCheckState(Qt::Checked);
        // The paths `lab sandbox` reports for the built modes (README, "The deployment lab").
        QVERIFY2(sketch->accessibleDescription().contains(
                     QStringLiteral("NAT (nftables DNAT): veth → DNAT → bridge → veth")),
                 qPrintable(sketch->accessibleDescription()));
        QVERIFY(sketch->accessibleDescription().contains(QStringLiteral("MTU 1500")));
        // With linux-bridge in the lab the wire's far end is a bridge port for every mode.
        modeItem(QStringLiteral("linux-bridge"))->setCheckState(Qt::Checked);
        QVERIFY(sketch->accessibleDescription().contains(
            QStringLiteral("NAT (nftables DNAT): veth → bridge port → DNAT → bridge → veth")));
        QVERIFY(sketch->accessibleDescription().contains(
            QStringLiteral("Linux bridge: veth → bridge → veth")));
        modeItem(QStringLiteral("container-nat"))->setCheckState(Qt::Unchecked);
        QVERIFY(!sketch->accessibleDescription().contains(QStringLiteral("DNAT")));
    }

    void theMtuFieldRefuses100() {
        m_dialog->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_dialog.get()));
        QSpinBox* mtu = mtuField();
        QCOMPARE(mtu->value(), 1500);
        mtu->setFocus();
        mtu->selectAll();
        QTest::keyClicks(mtu, QStringLiteral("100"));
        QTest::keyClick(mtu, Qt::Key_Return);
        QCOMPARE(mtu->value(), 1500);
        mtu->setValue(100);
        QCOMPARE(mtu->value(), app::kMinLabMtu);
    }

    void aSessionsLabServerIsPickedAndAnotherRefused() {
        app::Session session;
        app::Target apache = app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0);
        apache.lab = app::LabPlacement{QStringLiteral("host"), QStringLiteral("apache"), {}};
        session.targets.push_back(apache);
        session.lab = app::LabSetup{1400, {}, {}, {QStringLiteral("host")}};
        m_document->reset(session);
        m_dialog = std::make_unique<LabTargetsDialog>(m_document.get());
        m_dialog->setAvailability(fakeMachine());
        QCOMPARE(m_dialog->choice().server, LabServerKind::Apache);
        QCOMPARE(mtuField()->value(), 1400);
        m_dialog->setServer(LabServerKind::Http);
        modeItem(QStringLiteral("container-nat"))->setCheckState(Qt::Checked);
        QVERIFY(!okButton()->isEnabled());
        m_dialog->accept();
        QCOMPARE(m_document->session().targets.size(), size_t(1));
    }

    // Adding lab targets again, the same modes ticked, adds no second "host": the modes the
    // session has are shown ticked and greyed, and only the new ones are added.
    void aModeWithItsLabTargetIsNotAddedAgain() {
        app::Session session;
        for (const char* id : {"host", "userland-proxy"}) {
            app::Target target = app::makeTarget(
                QString::fromLatin1(id), *app::deploymentModeFromId(QString::fromLatin1(id)),
                int(session.targets.size()));
            target.protocol = app::TargetProtocol::TcpRr;
            target.address = QStringLiteral("10.213.0.2:8080");
            target.lab = app::LabPlacement{QString::fromLatin1(id), QStringLiteral("echo"), {}};
            session.targets.push_back(target);
        }
        session.lab =
            app::LabSetup{1500, {}, {}, {QStringLiteral("host"), QStringLiteral("userland-proxy")}};
        m_document->reset(session);
        m_dialog = std::make_unique<LabTargetsDialog>(m_document.get());
        m_dialog->setAvailability(fakeMachine());
        const QListWidgetItem* host = modeItem(QStringLiteral("host"));
        QVERIFY(host);
        QCOMPARE(host->checkState(), Qt::Checked);
        QVERIFY(!host->flags().testFlag(Qt::ItemIsEnabled));
        QVERIFY2(host->text().contains(QStringLiteral("“host”")), qPrintable(host->text()));

        m_dialog->setModeChecked(LabMode::Host, true);
        m_dialog->setModeChecked(LabMode::UserlandProxy, true);
        m_dialog->setModeChecked(LabMode::Nat, true);
        QVERIFY(okButton()->isEnabled());
        m_dialog->accept();
        QStringList names;
        for (const app::Target& target : m_document->session().targets)
            names << target.displayName();
        QCOMPARE(names, (QStringList{QStringLiteral("host"), QStringLiteral("userland-proxy"),
                                     QStringLiteral("container-nat")}));
    }

    // What `lab check` says of a mode it can build, the dialog says too.
    void aBuildableModeSaysHowItIsBuilt() {
        m_dialog->setAvailability(machineLikeThisOne());
        const QListWidgetItem* proxy = modeItem(QStringLiteral("userland-proxy"));
        QVERIFY(proxy && proxy->flags().testFlag(Qt::ItemIsEnabled));
        QVERIFY2(proxy->text().contains(kProxyHow), qPrintable(proxy->text()));
    }

    // A reason as long as a command line wraps inside the list, whole.
    void aLongReasonWrapsInsideTheList() {
        m_dialog->setAvailability(machineLikeThisOne());
        QListWidgetItem* ipvlan = modeItem(QStringLiteral("ipvlan"));
        QVERIFY(ipvlan && ipvlan->text().contains(kIpvlanReason));
        QTest::qWait(50); // the list lays its items out on a posted event
        const QRect shown = modeList()->visualItemRect(ipvlan);
        QVERIFY2(shown.right() <= modeList()->viewport()->width(),
                 qPrintable(QStringLiteral("%1 wide in %2")
                                .arg(shown.width())
                                .arg(modeList()->viewport()->width())));
        QVERIFY2(shown.height() >= 2 * modeList()->fontMetrics().lineSpacing(),
                 qPrintable(QString::number(shown.height())));
    }

    // Ticking every mode leaves the dialog as it was, and every mode's path whole.
    void tickingEveryModeNeitherGrowsTheDialogNorCutsAPath() {
        m_dialog->setAvailability(machineLikeThisOne());
        QTest::qWait(50);
        const QSize before = m_dialog->size();
        const QSize hint = m_dialog->sizeHint();
        int ticked = 0;
        for (LabMode mode : app::lab::labModes()) {
            m_dialog->setModeChecked(mode, true);
            QTest::qWait(10);
            QCOMPARE(m_dialog->size(), before);
        }
        ticked = int(m_dialog->choice().modes.size());
        QCOMPARE(ticked, int(app::lab::labModes().size()) - 2); // all but OVS and ipvlan
        QCOMPARE(m_dialog->sizeHint(), hint);
        auto* sketch = m_dialog->findChild<loadscope::ui::LabTopologySketch*>();
        QFont bold = sketch->font();
        bold.setBold(true);
        for (int i = 0; i < ticked; ++i) {
            const LabMode mode = sketch->modes()[size_t(i)];
            // With linux-bridge in the lab every other path from the wire starts at a bridge
            // port; a path that does not start at the wire (pod-bridge, overlay-vxlan) is whole.
            const QString path =
                !app::lab::labModePathFromWire(mode)
                    ? app::lab::labModePath(mode)
                    : (mode == LabMode::Bridge ? QStringLiteral("veth → ")
                                               : QStringLiteral("veth → bridge port → ")) +
                          app::lab::labModePath(mode);
            const int room = sketch->modeRect(i).width() - 12; // less the box's padding
            QVERIFY2(sketch->fontMetrics().horizontalAdvance(path) <= room &&
                         QFontMetrics(bold).horizontalAdvance(app::lab::labModeTitle(mode)) <= room,
                     qPrintable(path));
            QVERIFY(sketch->modeRect(i).right() < sketch->width());
        }
    }

private:
    QListWidget* modeList() const {
        return m_dialog->findChild<QListWidget*>(QStringLiteral("labModeList"));
    }
    QSpinBox* mtuField() const {
        return m_dialog->findChild<QSpinBox*>(QStringLiteral("labMtuSpin"));
    }
    QPushButton* okButton() const {
        return m_dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    }
    QListWidgetItem* modeItem(const QString& id) const {
        for (int row = 0; row < modeList()->count(); ++row) {
            QListWidgetItem* item = modeList()->item(row);
            if (item->text().contains(QStringLiteral("(%1)").arg(id)))
                return item;
        }
        return nullptr;
    }

    std::unique_ptr<SessionDocument> m_document;
    std::unique_ptr<LabTargetsDialog> m_dialog;
};

QTEST_MAIN(TstLabTargetsDialog)
#include "tst_lab_targets_dialog.moc"
