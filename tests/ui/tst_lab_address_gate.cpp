// Probe (Ctrl+Shift+P on the Targets page) on a lab target makes no connection:
// the window is shown the lab-tcp-rr example, in a network namespace of the
// suite's own where the whole lab range 10.213.0.0/16 is this namespace's `lo`
// and a listener on 10.213.0.2:9 (the lab targets' address) counts every
// connection made to it. Outside such a namespace that address leads to the
// machine's real network; here nothing can leave whatever the window does.
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "tests/support/private_network.h"
#include "ui/shell/main_window.h"
#include "ui/shell/targets_page.h"

#include <QApplication>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace loadscope;

namespace {

// A listener on 10.213.0.2:9 that counts the connections it is offered.
class CountingListener {
public:
    CountingListener() {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(9);
        ::inet_pton(AF_INET, "10.213.0.2", &address.sin_addr);
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(m_fd, 16) != 0) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_fd = -1;
        }
    }
    ~CountingListener() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool listening() const { return m_fd >= 0; }
    // Every connection made so far; a connect the kernel completed waits in the backlog.
    int accepted() {
        for (int client; (client = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
            ::close(client);
            ++m_accepted;
        }
        return m_accepted;
    }

private:
    int m_fd = -1;
    int m_accepted = 0;
};

} // namespace

class TestLabAddressGate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_settings.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        // The lab's range on this namespace's lo: a connection to any of it stays here.
        QCOMPARE(
            QProcess::execute(QStringLiteral("ip"), {QStringLiteral("addr"), QStringLiteral("add"),
                                                     QStringLiteral("10.213.0.2/16"),
                                                     QStringLiteral("dev"), QStringLiteral("lo")}),
            0);
    }

    void probeOfALabTargetConnectsNowhere() {
        CountingListener listener;
        QVERIFY(listener.listening());
        ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto opened = window.openSession(QStringLiteral("lab-tcp-rr"));
        QTRY_COMPARE_WITH_TIMEOUT(window.document()->session().targets.size(), size_t(3), 10'000);
        const app::Target host = window.document()->session().targets.front();
        QVERIFY(host.lab);
        QCOMPARE(host.address, QStringLiteral("10.213.0.2:9"));
        ui::TargetsPage* page = window.targetsPage();
        window.pages()->setCurrentWidget(page);
        page->selectTarget(host.id);
        // The page's shortcuts work while it has the focus: in its table, as after a click.
        auto* table = page->findChild<QTableView*>();
        QVERIFY(table);
        table->setFocus();
        QTRY_VERIFY(table->hasFocus());

        QSignalSpy finished(page, &ui::TargetsPage::probeFinished);
        QTest::keyClick(table, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
        const QString line =
            QStringLiteral("lab target 'host' is reached inside its lab: run the sweep");
        QCOMPARE(finished.at(0).at(1).toString(), line);
        QCOMPARE(finished.at(0).at(2).toBool(), false);
        QCOMPARE(page->findChild<QLabel*>(QStringLiteral("probeError"))->text(), line);
        QTest::qWait(300); // a connect made would be in the listener's backlog by now
        QCOMPARE(listener.accepted(), 0);

        // The same address as a target of the user's own is probed, and the listener sees
        // it: the count above would have shown the lab target's probe.
        app::Target own = host;
        own.id = QUuid::createUuid();
        own.name = QStringLiteral("own");
        own.lab.reset();
        window.document()->addTarget(own);
        page->selectTarget(own.id);
        QTest::keyClick(table, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10'000);
        QVERIFY2(finished.at(1).at(2).toBool(), qPrintable(finished.at(1).at(1).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(listener.accepted(), 1, 5'000);
        window.document()->setModified(false);
    }

private:
    QTemporaryDir m_settings;
};

LOADSCOPE_PRIVATE_NETWORK_MAIN(QApplication, TestLabAddressGate)
#include "tst_lab_address_gate.moc"
