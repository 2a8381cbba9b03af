#include "app/session/session_document.h"
#include "ui/common/field_error.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/target_field_checks.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::SessionDocument;
using loadscope::app::Target;
using loadscope::app::TargetProtocol;
using loadscope::ui::FieldError;
using loadscope::ui::TargetEditor;

class TstTargetEditor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        m_document = std::make_unique<SessionDocument>();
        Target target = loadscope::app::makeTarget(QStringLiteral("host"), DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://127.0.0.1:8080/");
        m_id = m_document->addTarget(target);
        m_document->setModified(false);
        m_editor = std::make_unique<TargetEditor>(m_document.get());
        m_editor->setTargetId(m_id);
        m_editor->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_editor.get()));
    }
    void cleanup() {
        m_editor.reset();
        m_document.reset();
    }

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

private:
    template <typename T> T* field(const char* name) const {
        auto* widget = m_editor->findChild<T*>(QString::fromLatin1(name));
        if (!widget)
            qFatal("no field %s", name);
        return widget;
    }
    const Target& target() const { return *m_document->session().findTarget(m_id); }

    std::unique_ptr<SessionDocument> m_document;
    std::unique_ptr<TargetEditor> m_editor;
    QUuid m_id;
};

QTEST_MAIN(TstTargetEditor)
#include "tst_target_editor.moc"
