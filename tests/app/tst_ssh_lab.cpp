// The lab on another host: a session whose lab names one of its hosts runs
// `lab sandbox ... -- lab agent` there over real OpenSSH (the host a network
// namespace with its own sshd, as tst_ssh_hosts builds it; the suite in a
// private network namespace, the machine's network compared before and
// after). The truths: the lab's own line of where it built the mode, the
// run's progress reaching this process, and nothing left on the host.
#include "app/lab/lab_targets.h"
#include "app/session/session.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "private_netns_main.h"
#include "ssh_test_hosts.h"

#include <QCoroTask>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <memory>

using namespace loadscope;
using app::SweepOutcome;

class TestSshLab : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<testing::SshTestKeys> m_keys;
    std::unique_ptr<testing::SshHostNetwork> m_network;

private Q_SLOTS:
    void initTestCase() {
        if (const QString why = testing::privateNetnsUnavailable(); !why.isEmpty())
            QSKIP(qPrintable(why));
        if (const QString why = testing::sshdUnavailable(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_dir = std::make_unique<QTemporaryDir>();
        m_keys = std::make_unique<testing::SshTestKeys>(m_dir->path());
        QVERIFY2(m_keys->problem().isEmpty(), qPrintable(m_keys->problem()));
        m_network = std::make_unique<testing::SshHostNetwork>(*m_keys);
        QVERIFY2(m_network->addHost(QStringLiteral("labhost"), 1),
                 qPrintable(m_network->problem()));
    }

    // Two modes of the lab built on the host, a point each, with the live
    // progress the window charts and the lab's description in each result.
    void labRunsOnTheHost() {
        app::Session session;
        app::Host host;
        host.name = QStringLiteral("labhost");
        host.destination = QStringLiteral("labhost");
        host.command = qEnvironmentVariable("LOADSCOPE_CLI");
        session.hosts.push_back(host);
        app::lab::LabTargetChoice choice;
        choice.modes = {app::lab::LabMode::Host, app::lab::LabMode::Nat};
        auto edit = app::lab::labTargets(session, choice);
        QVERIFY(edit);
        session.targets = edit->targets;
        session.lab = edit->lab;
        session.lab->host = QStringLiteral("labhost");
        session.plan.concurrencyLevels = {4};
        session.plan.repetitions = 1;
        session.plan.threads = 1;
        session.plan.limit = app::PointLimit::Duration;
        session.plan.durationSeconds = 1;
        app::SessionDocument document;
        document.reset(session);
        app::SweepRunner runner(&document);
        app::SshOptions ssh;
        ssh.configFile = m_keys->clientConfig();
        runner.setSshOptions(ssh);
        QSignalSpy progress(&runner, &app::SweepRunner::progressAvailable);
        QStringList status;
        connect(&runner, &app::SweepRunner::statusChanged, this,
                [&status](const QString& line) { status << line; });
        std::optional<SweepOutcome> outcome;
        QEventLoop loop;
        QCoro::connect(runner.run(), &loop, [&](const SweepOutcome& ended) {
            outcome = ended;
            loop.quit();
        });
        QTimer::singleShot(90'000, &loop, [&] { runner.cancel(); });
        if (!outcome)
            loop.exec();
        QVERIFY(outcome);
        QVERIFY2(outcome->status == SweepOutcome::Status::Completed, qPrintable(outcome->error));
        QVERIFY(status.contains(QStringLiteral("building the lab on host 'labhost'")));
        const auto& results = document.session().results;
        QCOMPARE(results.size(), size_t(2));
        for (const app::PointResult& result : results) {
            QVERIFY(result.complete > 100);
            QCOMPARE(result.failed, 0u);
            QCOMPARE(result.environment.labMtu, 1500);
            QVERIFY(!result.environment.labPath.isEmpty());
            // The lab's server, measured by the agent inside the lab on that host.
            QVERIFY(result.cpu && result.cpu->serverSeconds && *result.cpu->serverSeconds > 0);
        }
        QVERIFY(progress.size() >= 10); // about ten snapshots a second, from the host
        // Nothing of the lab is left on the host.
        QStringList left;
        for (int i = 0; i < 250; ++i) {
            left = m_network->leftRunning(QStringLiteral("labhost"));
            if (left.isEmpty())
                break;
            QTest::qWait(20);
        }
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral("; "))));
    }
};

LOADSCOPE_PRIVATE_NETNS_MAIN(TestSshLab)
#include "tst_ssh_lab.moc"
