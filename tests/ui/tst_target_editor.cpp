#include "app/cli/one_shot.h"
#include "app/session/session_document.h"
#include "app/session/target_rules.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/http2_protocol.h"
#include "tests/app/load_spec_checks.h"
#include "tests/app/result_message.h"
#include "tests/ui/target_editor_fixture.h"
#include "ui/common/field_error.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/target_field_checks.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::SessionDocument;
using loadscope::app::Target;
using loadscope::app::TargetProtocol;
using loadscope::ui::FieldError;
using loadscope::ui::TargetEditor;

namespace {

loadscope::app::Result<loadscope::engine::LoadSpec> specOf(const Target& target,
                                                           const loadscope::cli::OneShot& shot) {
    auto draft = loadscope::app::draftLoadSpec(target, shot.concurrency(), shot.plan);
    if (!draft)
        return draft.error();
    draft->spec.target = *loadscope::engine::SocketAddress::fromNumeric(
        draft->endpoint.host.toStdString(), draft->endpoint.port);
    return std::move(draft->spec);
}

} // namespace

// The editor's fields and what they store; its HTTP/2 and TLS groups are tst_target_editor_tls's.
class TstTargetEditor : public QObject, private loadscope::test::TargetEditorFixture {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(setUp()); }
    void cleanup() { tearDown(); }

    void typingANameChangesTheSession() {
        auto* name = field<QLineEdit>("nameEdit");
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("bare metal"));
        QCOMPARE(target().name, QStringLiteral("bare metal"));
        QVERIFY(m_document->isModified());
    }

    void typingAUrlChangesTheSession() {
        auto* url = field<QLineEdit>("urlEdit");
        url->selectAll();
        QTest::keyClicks(url, QStringLiteral("http://10.1.2.3:9000/index.html"));
        QCOMPARE(target().http.url, QStringLiteral("http://10.1.2.3:9000/index.html"));
        QVERIFY(!field<FieldError>("urlError")->isVisible());
    }

    void anInvalidUrlIsSaidAndNotStored() {
        auto* url = field<QLineEdit>("urlEdit");
        auto* error = field<FieldError>("urlError");
        url->selectAll();
        QTest::keyClicks(url, QStringLiteral("htp//broken"));
        QVERIFY(error->isVisible());
        QVERIFY(!error->message().isEmpty());
        QVERIFY(!m_editor->isValid());
        QCOMPARE(target().http.url, QStringLiteral("http://127.0.0.1:8080/"));
        QVERIFY(!m_document->isModified());

        // Other fields wait too while one is invalid.
        auto* name = field<QLineEdit>("nameEdit");
        QTest::keyClicks(name, QStringLiteral("-x"));
        QCOMPARE(target().name, QStringLiteral("host"));

        url->selectAll();
        QTest::keyClicks(url, QStringLiteral("http://127.0.0.1:8081/"));
        QVERIFY(!error->isVisible());
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().http.url, QStringLiteral("http://127.0.0.1:8081/"));
        QCOMPARE(target().name, QStringLiteral("host-x"));
    }

    // The server's PID: a running process is stored quietly; one that does not run here is
    // stored with a warning (the session may be run on another machine, or the server started
    // later); text that is no PID is an error and the session keeps the last good value.
    void theServerPidIsCheckedAndStored() {
        auto* pid = field<QLineEdit>("serverPidEdit");
        auto* error = field<FieldError>("serverPidError");
        auto* warning = field<QLabel>("serverCpuWarning");
        const int own = int(QCoreApplication::applicationPid());
        QTest::keyClicks(pid, QString::number(own));
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().serverPid, own);
        QVERIFY(!error->isVisible());
        QVERIFY(!warning->isVisible());

        pid->selectAll();
        QTest::keyClicks(pid, QString::number(loadscope::app::kMaxPid));
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().serverPid, loadscope::app::kMaxPid);
        QVERIFY(!error->isVisible());
        QVERIFY(warning->isVisible());
        QVERIFY2(warning->text().contains(QString::number(loadscope::app::kMaxPid)),
                 qPrintable(warning->text()));

        pid->selectAll();
        QTest::keyClicks(pid, QStringLiteral("nginx"));
        QVERIFY(!m_editor->isValid());
        QVERIFY(error->isVisible());
        QVERIFY2(error->message().contains(QStringLiteral("'nginx' is not a process id")),
                 qPrintable(error->message()));
        QCOMPARE(target().serverPid, loadscope::app::kMaxPid);

        pid->selectAll();
        QTest::keyClick(pid, Qt::Key_Backspace);
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().serverPid, 0);
        QVERIFY(!warning->isVisible());
    }

    void theServerCgroupIsAnAbsolutePath() {
        auto* cgroup = field<QLineEdit>("serverCgroupEdit");
        auto* error = field<FieldError>("serverCgroupError");
        QTest::keyClicks(cgroup, QStringLiteral("system.slice"));
        QVERIFY(!m_editor->isValid());
        QVERIFY(error->isVisible());
        QVERIFY(target().serverCgroup.isEmpty());
        cgroup->clear();
        QTest::keyClicks(cgroup, QStringLiteral("/sys/fs/cgroup"));
        QVERIFY(m_editor->isValid());
        QVERIFY(!error->isVisible());
        QCOMPARE(target().serverCgroup, QStringLiteral("/sys/fs/cgroup"));
        // Loading another target shows its own fields.
        Target other = target();
        other.serverPid = 12;
        other.serverCgroup.clear();
        m_document->updateTarget(other);
        QCOMPARE(field<QLineEdit>("serverPidEdit")->text(), QStringLiteral("12"));
        QVERIFY(cgroup->text().isEmpty());
    }

    // A line break in a header value would put a second request on the wire.
    void aHeaderValueWithALineBreakIsRefused() {
        auto* headers = field<QTableWidget>("headersTable");
        headers->insertRow(0);
        headers->setItem(0, 1, new QTableWidgetItem(QStringLiteral("a\r\nGET /evil")));
        headers->setItem(0, 0, new QTableWidgetItem(QStringLiteral("X")));
        QVERIFY(!m_editor->isValid());
        QVERIFY(target().http.headers.empty());
        headers->item(0, 1)->setText(QStringLiteral("a"));
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().http.headers.size(), size_t(1));
    }

    void aBadPortIsSaidNextToTheAddress() {
        auto* address = field<QLineEdit>("httpAddressEdit");
        QTest::keyClicks(address, QStringLiteral("127.0.0.1:99999"));
        QVERIFY(!m_editor->isValid());
        // The session holds the last address that was usable while typing.
        QCOMPARE(target().address, QStringLiteral("127.0.0.1:9999"));
        QTest::keyClicks(address, QStringLiteral("9"));
        QCOMPARE(target().address, QStringLiteral("127.0.0.1:9999"));
        address->selectAll();
        QTest::keyClicks(address, QStringLiteral("10.0.0.1:0"));
        QVERIFY(!m_editor->isValid());
        QCOMPARE(target().address, QStringLiteral("127.0.0.1:9999"));
        QTest::keyClick(address, Qt::Key_Backspace);
        QTest::keyClicks(address, QStringLiteral("8080"));
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().address, QStringLiteral("10.0.0.1:8080"));
    }

    void switchingToMemcacheNeedsAnAddress() {
        auto* protocol = field<QComboBox>("protocolCombo");
        protocol->setCurrentIndex(protocol->findData(int(TargetProtocol::Memcache)));
        // No address yet: the switch waits for one.
        QVERIFY(!m_editor->isValid());
        QCOMPARE(target().protocol, TargetProtocol::Http);

        auto* address = field<QLineEdit>("memcacheAddressEdit");
        QVERIFY(address->isVisible());
        QTest::keyClicks(address, QStringLiteral("127.0.0.1:11211"));
        QCOMPARE(target().protocol, TargetProtocol::Memcache);
        QCOMPARE(target().address, QStringLiteral("127.0.0.1:11211"));

        auto* pattern = field<QLineEdit>("keyPatternEdit");
        pattern->selectAll();
        QTest::keyClicks(pattern, QStringLiteral("X:Y"));
        QVERIFY(!m_editor->isValid());
        QCOMPARE(target().memcache.keyPattern, QStringLiteral("R:R"));
        pattern->selectAll();
        QTest::keyClicks(pattern, QStringLiteral("s:g"));
        QCOMPARE(target().memcache.keyPattern, QStringLiteral("S:G"));

        auto* value = field<QSpinBox>("valueSizeSpin");
        value->setValue(512);
        QCOMPARE(target().memcache.valueSize, 512);

        // A prefix so long that memcached would refuse the keys: the whole-target check says so.
        auto* prefix = field<QLineEdit>("keyPrefixEdit");
        QTest::keyClicks(prefix, QString(260, QLatin1Char('k')));
        QVERIFY(!m_editor->isValid());
        QVERIFY(field<FieldError>("targetError")->isVisible());
        // The session kept the longest prefix that still made keys memcached accepts.
        const QString stored = target().memcache.keyPrefix;
        QVERIFY(stored.size() < prefix->text().size());
        QVERIFY(stored.startsWith(QStringLiteral("memtier-k")));
        QVERIFY(loadscope::ui::targetProblem(target()).isEmpty());
    }

    void tcpRrOptionsReachTheSession() {
        auto* protocol = field<QComboBox>("protocolCombo");
        protocol->setCurrentIndex(protocol->findData(int(TargetProtocol::TcpRr)));
        QTest::keyClicks(field<QLineEdit>("tcpRrAddressEdit"), QStringLiteral("[::1]:12865"));
        field<QSpinBox>("responseSizeSpin")->setValue(4096);
        QCOMPARE(target().protocol, TargetProtocol::TcpRr);
        QCOMPARE(target().address, QStringLiteral("[::1]:12865"));
        QCOMPARE(target().tcpRr.responseSize, 4096);
    }

    void anOwnModeIsTypedIn() {
        auto* mode = field<QComboBox>("modeCombo");
        auto* custom = field<QLineEdit>("customModeEdit");
        QVERIFY(!custom->isVisible());
        mode->setCurrentIndex(mode->findData(int(DeploymentMode::ContainerNat)));
        QCOMPARE(target().mode, DeploymentMode::ContainerNat);
        mode->setCurrentIndex(mode->findData(int(DeploymentMode::Custom)));
        QVERIFY(custom->isVisible());
        QTest::keyClicks(custom, QStringLiteral("ipvlan-l3"));
        QCOMPARE(target().mode, DeploymentMode::Custom);
        QCOMPARE(target().modeLabel(), QStringLiteral("ipvlan-l3"));
    }

    // Every mode the lab builds is one the Mode list offers, by the lab's own identifier.
    void theModeListOffersEveryLabMode() {
        auto* mode = field<QComboBox>("modeCombo");
        QSet<QString> offered;
        for (int i = 0; i < mode->count(); ++i) {
            mode->setCurrentIndex(i);
            if (target().mode != DeploymentMode::Custom)
                offered << target().modeLabel();
        }
        for (const QString& id : loadscope::app::labModeIds())
            QVERIFY2(offered.contains(id), qPrintable(id));
        QVERIFY(offered.contains(QStringLiteral("ipvlan")));
        QVERIFY(offered.contains(QStringLiteral("rootless-nat")));
    }

    void aChangeMadeElsewhereIsShown() {
        Target changed = target();
        changed.name = QStringLiteral("renamed");
        changed.http.url = QStringLiteral("http://192.0.2.1/");
        QVERIFY(m_document->updateTarget(changed));
        QCOMPARE(field<QLineEdit>("nameEdit")->text(), QStringLiteral("renamed"));
        QCOMPARE(field<QLineEdit>("urlEdit")->text(), QStringLiteral("http://192.0.2.1/"));

        QVERIFY(m_document->removeTarget(m_id));
        QVERIFY(!m_editor->isEnabled());
        QCOMPARE(m_editor->targetId(), QUuid());
    }

    void anUnusableTargetFromAFileIsFlaggedAtOnce() {
        Target broken = target();
        broken.protocol = TargetProtocol::TcpStream;
        broken.address.clear();
        QVERIFY(m_document->updateTarget(broken));
        QVERIFY(!m_editor->isValid());
    }

    // The window's editor and the CLI's flags make one Target, so one LoadSpec.
    void theEditorAndTheCliGiveTheSameSpec_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("http") << QStringList{QStringLiteral("loadscope-cli http"),
                                             QStringLiteral("-c"),
                                             QStringLiteral("4"),
                                             QStringLiteral("-n"),
                                             QStringLiteral("400"),
                                             QStringLiteral("-k"),
                                             QStringLiteral("-l"),
                                             QStringLiteral("-s"),
                                             QStringLiteral("2.5"),
                                             QStringLiteral("-m"),
                                             QStringLiteral("PUT"),
                                             QStringLiteral("-H"),
                                             QStringLiteral("X-Trace: 7"),
                                             QStringLiteral("--pipeline"),
                                             QStringLiteral("2"),
                                             QStringLiteral("--http1.0"),
                                             QStringLiteral("http://127.0.0.1:8080/a?b=1")};
        QTest::newRow("http2") << QStringList{QStringLiteral("loadscope-cli http"),
                                              QStringLiteral("-c"),
                                              QStringLiteral("3"),
                                              QStringLiteral("-n"),
                                              QStringLiteral("300"),
                                              QStringLiteral("-k"),
                                              QStringLiteral("--h2"),
                                              QStringLiteral("--max-concurrent-streams"),
                                              QStringLiteral("8"),
                                              QStringLiteral("--window-bits"),
                                              QStringLiteral("16"),
                                              QStringLiteral("--connection-window-bits"),
                                              QStringLiteral("20"),
                                              QStringLiteral("http://127.0.0.1:8080/a?b=1")};
        QTest::newRow("memcache") << QStringList{QStringLiteral("loadscope-cli memcache"),
                                                 QStringLiteral("-c"),
                                                 QStringLiteral("2"),
                                                 QStringLiteral("-t"),
                                                 QStringLiteral("2"),
                                                 QStringLiteral("-n"),
                                                 QStringLiteral("50"),
                                                 QStringLiteral("--ratio=1:4"),
                                                 QStringLiteral("--key-pattern=S:R"),
                                                 QStringLiteral("--key-maximum"),
                                                 QStringLiteral("999"),
                                                 QStringLiteral("--key-prefix"),
                                                 QStringLiteral("k-"),
                                                 QStringLiteral("-d"),
                                                 QStringLiteral("64"),
                                                 QStringLiteral("--pipeline"),
                                                 QStringLiteral("3"),
                                                 QStringLiteral("--preload"),
                                                 QStringLiteral("--timeout"),
                                                 QStringLiteral("3"),
                                                 QStringLiteral("127.0.0.1:11211")};
    }
    void theEditorAndTheCliGiveTheSameSpec() {
        QFETCH(QStringList, arguments);
        const bool http = arguments.constFirst().endsWith(QStringLiteral("http"));
        const bool http2 = arguments.contains(QStringLiteral("--h2"));
        const auto shot = http ? loadscope::cli::parseHttpOneShot(arguments)
                               : loadscope::cli::parseMemcacheOneShot(arguments);
        QVERIFY2(shot, qPrintable(loadscope::testing::failureOf(shot)));

        // What a user types for the same run.
        if (http2) {
            auto* url = field<QLineEdit>("urlEdit");
            url->selectAll();
            QTest::keyClicks(url, QStringLiteral("http://127.0.0.1:8080/a?b=1"));
            field<QCheckBox>("keepAliveCheck")->setChecked(true);
            field<QCheckBox>("http2Check")->setChecked(true);
            field<QSpinBox>("http2StreamsSpin")->setValue(8);
            field<QSpinBox>("http2WindowBitsSpin")->setValue(16);
            field<QSpinBox>("http2ConnectionWindowBitsSpin")->setValue(20);
        } else if (http) {
            auto* url = field<QLineEdit>("urlEdit");
            url->selectAll();
            QTest::keyClicks(url, QStringLiteral("http://127.0.0.1:8080/a?b=1"));
            field<QComboBox>("methodCombo")->setCurrentText(QStringLiteral("PUT"));
            auto* headers = field<QTableWidget>("headersTable");
            headers->insertRow(0);
            headers->setItem(0, 0, new QTableWidgetItem(QStringLiteral("X-Trace")));
            headers->setItem(0, 1, new QTableWidgetItem(QStringLiteral("7")));
            field<QCheckBox>("keepAliveCheck")->setChecked(true);
            field<QSpinBox>("httpPipelineSpin")->setValue(2);
            field<QCheckBox>("acceptVariableLengthCheck")->setChecked(true);
            field<QCheckBox>("http10Check")->setChecked(true);
            field<QDoubleSpinBox>("httpTimeoutSpin")->setValue(2.5);
        } else {
            auto* protocol = field<QComboBox>("protocolCombo");
            protocol->setCurrentIndex(protocol->findData(int(TargetProtocol::Memcache)));
            QTest::keyClicks(field<QLineEdit>("memcacheAddressEdit"),
                             QStringLiteral("127.0.0.1:11211"));
            field<QSpinBox>("setRatioSpin")->setValue(1);
            field<QSpinBox>("getRatioSpin")->setValue(4);
            auto* pattern = field<QLineEdit>("keyPatternEdit");
            pattern->selectAll();
            QTest::keyClicks(pattern, QStringLiteral("S:R"));
            auto* maximum = field<QLineEdit>("keyMaximumEdit");
            maximum->selectAll();
            QTest::keyClicks(maximum, QStringLiteral("999"));
            auto* prefix = field<QLineEdit>("keyPrefixEdit");
            prefix->selectAll();
            QTest::keyClicks(prefix, QStringLiteral("k-"));
            field<QSpinBox>("valueSizeSpin")->setValue(64);
            field<QSpinBox>("memcachePipelineSpin")->setValue(3);
            field<QCheckBox>("preloadCheck")->setChecked(true);
            field<QDoubleSpinBox>("memcacheTimeoutSpin")->setValue(3);
        }
        QVERIFY(m_editor->isValid());

        const auto fromCli = specOf(shot->target, *shot);
        QVERIFY2(fromCli, qPrintable(loadscope::testing::failureOf(fromCli)));
        const auto fromWindow = specOf(target(), *shot);
        QVERIFY2(fromWindow, qPrintable(loadscope::testing::failureOf(fromWindow)));
        const QString differences = loadscope::testing::loadSpecDifferences(*fromCli, *fromWindow);
        QVERIFY2(differences.isEmpty(), qPrintable(differences));
        if (http2) {
            // Streams are the requests outstanding per connection (h2c, no ALPN).
            QCOMPARE(fromWindow->concurrency, 3u);
            QCOMPARE(fromWindow->pipeline, 8u);
            const auto* windowH2 =
                dynamic_cast<const loadscope::engine::Http2Protocol*>(fromWindow->protocol.get());
            const auto* cliH2 =
                dynamic_cast<const loadscope::engine::Http2Protocol*>(fromCli->protocol.get());
            QVERIFY(windowH2 && cliH2);
            QCOMPARE(windowH2->settings().windowBits, 16);
            QCOMPARE(windowH2->settings().connectionWindowBits, 20);
            QCOMPARE(cliH2->settings().windowBits, 16);
            QCOMPARE(cliH2->settings().connectionWindowBits, 20);
            QVERIFY(!windowH2->settings().tls);
            QVERIFY(!fromWindow->tls.enabled);
        } else if (http) {
            QCOMPARE(fromWindow->requestTimeout, std::chrono::nanoseconds(2'500'000'000));
            QVERIFY(!fromWindow->protocol->checksDocumentLength());
            const std::string sent =
                loadscope::testing::requestBytes(*fromWindow->protocol, 0, fromWindow->seed, 1);
            QVERIFY2(sent.starts_with("PUT /a?b=1 HTTP/1.0\r\n"), sent.c_str()); // --http1.0
            QVERIFY(sent.find("\r\nX-Trace: 7\r\n") != std::string::npos);
        } else {
            QCOMPARE(fromWindow->concurrency, 4u);
            QCOMPARE(fromWindow->requests, uint64_t(200));
            QCOMPARE(fromWindow->pipeline, 3u);
            QCOMPARE(fromWindow->requestTimeout, std::chrono::nanoseconds(3'000'000'000));
        }
    }
};

QTEST_MAIN(TstTargetEditor)
#include "tst_target_editor.moc"
