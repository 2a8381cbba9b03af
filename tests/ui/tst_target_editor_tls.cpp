// The target editor's HTTP/2 group and the TLS options of https and tcp-rr targets: what the fields
// hold reaches the session, the rules that refuse a value are the CLI's and the file's
// (app/session/target_rules.h), and the window and the CLI make the same spec.
#include "app/cli/one_shot.h"
#include "app/session/session_document.h"
#include "app/session/target_rules.h"
#include "app/sweep/load_spec_builder.h"
#include "tests/app/load_spec_checks.h"
#include "tests/app/result_message.h"
#include "tests/ui/target_editor_fixture.h"
#include "ui/common/field_error.h"
#include "ui/shell/target_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using loadscope::app::Target;
using loadscope::app::TargetProtocol;
using loadscope::ui::FieldError;
using loadscope::ui::TargetEditor;

class TstTargetEditorTls : public QObject, private loadscope::test::TargetEditorFixture {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(setUp()); }
    void cleanup() { tearDown(); }

    // HTTP/2's fields: greyed until the box is ticked; ticking it turns the
    // pipeline into as many streams; what they hold reaches the session, and
    // a target read back shows them again.
    void http2FieldsRoundTripThroughTheTarget() {
        auto* http2 = field<QCheckBox>("http2Check");
        auto* streams = field<QSpinBox>("http2StreamsSpin");
        auto* window = field<QSpinBox>("http2WindowBitsSpin");
        auto* connectionWindow = field<QSpinBox>("http2ConnectionWindowBitsSpin");
        auto* pipeline = field<QSpinBox>("httpPipelineSpin");
        auto* http10 = field<QCheckBox>("http10Check");
        QVERIFY(!http2->isChecked());
        QVERIFY(!streams->isEnabled());
        QVERIFY(!window->isEnabled());
        QVERIFY(!connectionWindow->isEnabled());
        QVERIFY(pipeline->isEnabled());
        QVERIFY(http10->isEnabled());
        QVERIFY(field<QLabel>("http2ConcurrencyNote")
                    ->text()
                    .contains(QStringLiteral("concurrency = connections × streams")));

        pipeline->setValue(4);
        http10->setChecked(true);
        http2->setChecked(true);
        QVERIFY(m_editor->isValid());
        QVERIFY(streams->isEnabled() && window->isEnabled() && connectionWindow->isEnabled());
        QVERIFY(!pipeline->isEnabled());
        QVERIFY(!http10->isEnabled());
        QCOMPARE(streams->value(), 4);
        QVERIFY(target().http.http2);
        QCOMPARE(target().http.maxConcurrentStreams, 4); // 4 outstanding per connection still
        QCOMPARE(target().http.pipeline, 1);
        QVERIFY(!target().http.http10);

        streams->setValue(100);
        window->setValue(16);
        connectionWindow->setValue(24);
        QCOMPARE(target().http.maxConcurrentStreams, 100);
        QCOMPARE(target().http.windowBits, 16);
        QCOMPARE(target().http.connectionWindowBits, 24);
        bool shown = false; // the bytes beside the bits
        for (const QLabel* label : m_editor->findChildren<QLabel*>())
            shown = shown || label->text().contains(QLocale().toString(65535)); // 2^16 - 1
        QVERIFY(shown);

        // The target, read into a second editor, fills the fields as they were.
        TargetEditor reread(m_document.get());
        reread.setTargetId(m_id);
        const auto other = [&reread](const char* name) {
            return reread.findChild<QSpinBox*>(QString::fromLatin1(name));
        };
        QVERIFY(reread.findChild<QCheckBox*>(QStringLiteral("http2Check"))->isChecked());
        QCOMPARE(other("http2StreamsSpin")->value(), 100);
        QCOMPARE(other("http2WindowBitsSpin")->value(), 16);
        QCOMPARE(other("http2ConnectionWindowBitsSpin")->value(), 24);
        QVERIFY(!other("httpPipelineSpin")->isEnabled());

        // And one changed elsewhere shows here.
        Target changed = target();
        changed.http.maxConcurrentStreams = 7;
        changed.http.windowBits = 0;
        QVERIFY(m_document->updateTarget(changed));
        QCOMPARE(streams->value(), 7);
        QCOMPARE(window->value(), 0);

        http2->setChecked(false);
        QVERIFY(!target().http.http2);
        QVERIFY(!streams->isEnabled() && !window->isEnabled() && !connectionWindow->isEnabled());
        QVERIFY(pipeline->isEnabled());
        QVERIFY(http10->isEnabled());
    }

    // An HTTP/2 target from a file with what HTTP/2 refuses: the builder's
    // message beside the box, the field left editable until it is undone.
    void http2RefusesWhatItHasNoMeaningFor_data() {
        QTest::addColumn<int>("pipeline");
        QTest::addColumn<bool>("http10");
        QTest::addColumn<QString>("message");
        QTest::newRow("pipeline") << 4 << false
                                  << QStringLiteral("HTTP/2 has streams, not pipelining");
        QTest::newRow("http/1.0") << 1 << true
                                  << QStringLiteral("HTTP/1.0 and HTTP/2 cannot be combined");
    }
    void http2RefusesWhatItHasNoMeaningFor() {
        QFETCH(int, pipeline);
        QFETCH(bool, http10);
        QFETCH(QString, message);
        Target contradictory = target();
        contradictory.http.http2 = true;
        contradictory.http.pipeline = pipeline;
        contradictory.http.http10 = http10;
        QVERIFY(m_document->updateTarget(contradictory));
        auto* error = field<FieldError>("http2Error");
        QVERIFY(!m_editor->isValid());
        QVERIFY(error->isVisible());
        QVERIFY2(error->message().contains(message), qPrintable(error->message()));
        // The builder says the same of it.
        const auto draft = loadscope::app::draftLoadSpec(contradictory, 1, {});
        QVERIFY(!draft);
        QCOMPARE(draft.error().message, error->message());

        // Set right where it shows, then greyed.
        auto* pipelineSpin = field<QSpinBox>("httpPipelineSpin");
        auto* http10Check = field<QCheckBox>("http10Check");
        if (pipeline > 1) {
            QVERIFY(pipelineSpin->isEnabled());
            pipelineSpin->setValue(1);
        } else {
            QVERIFY(http10Check->isEnabled());
            http10Check->setChecked(false);
        }
        QVERIFY(m_editor->isValid());
        QVERIFY(!error->isVisible());
        QVERIFY(!pipelineSpin->isEnabled());
        QVERIFY(!http10Check->isEnabled());
        QCOMPARE(target().http.pipeline, 1);
        QVERIFY(!target().http.http10);
        QVERIFY(target().http.http2);
    }

    // A tcp-rr target's TLS group: greyed until it is on, its fields reach the target, and a
    // target read back shows them again; turned off, the target is cleartext but keeps them.
    void tcpRrTlsFieldsReachTheTarget() {
        QTemporaryDir dir;
        const QString ca = dir.filePath(QStringLiteral("ca.pem"));
        QFile file(ca);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("-----BEGIN CERTIFICATE-----\n");
        file.close();
        useTcpRr();
        auto* group = field<QGroupBox>("tcpRrTlsGroup");
        auto* insecure = field<QCheckBox>("tcpRrTlsInsecureCheck");
        auto* caFile = field<QLineEdit>("tcpRrTlsCaFileEdit");
        QVERIFY(group->isCheckable() && !group->isChecked());
        QVERIFY(!insecure->isEnabled() && !caFile->isEnabled());
        QVERIFY(!target().tcpRr.tls);

        group->setChecked(true);
        QVERIFY(insecure->isEnabled() && caFile->isEnabled());
        QTest::keyClicks(caFile, ca);
        field<QCheckBox>("tcpRrTlsResumeCheck")->setChecked(false);
        auto* version = field<QComboBox>("tcpRrTlsVersionCombo");
        version->setCurrentIndex(version->findData(QStringLiteral("1.3")));
        QVERIFY(m_editor->isValid());
        QVERIFY(target().tcpRr.tls);
        QVERIFY(!target().tcpRr.tlsInsecure);
        QCOMPARE(target().tcpRr.tlsCaFile, ca);
        QVERIFY(!target().tcpRr.tlsResume);
        QCOMPARE(target().tcpRr.tlsVersion, QStringLiteral("1.3"));

        TargetEditor reread(m_document.get());
        reread.setTargetId(m_id);
        QVERIFY(reread.findChild<QGroupBox*>(QStringLiteral("tcpRrTlsGroup"))->isChecked());
        QCOMPARE(reread.findChild<QLineEdit*>(QStringLiteral("tcpRrTlsCaFileEdit"))->text(), ca);
        QVERIFY(!reread.findChild<QCheckBox*>(QStringLiteral("tcpRrTlsResumeCheck"))->isChecked());

        group->setChecked(false);
        QVERIFY(!target().tcpRr.tls);
        QCOMPARE(target().tcpRr.tlsCaFile, ca);
    }

    // What the rules refuse is refused beside its field with the builder's words, and stays
    // out of the session; a CA file that is not there is named too.
    void tcpRrTlsRefusalsAreTheRules_data() {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("ca");
        QTest::addColumn<QString>("errorField");
        QTest::addColumn<bool>("sameAsBuilder");
        QTest::newRow("key without certificate")
            << QString() << QStringLiteral("/k.pem") << QString()
            << QStringLiteral("tcpRrTlsKeyFileEdit") << true;
        QTest::newRow("no CA file")
            << QString() << QString() << QStringLiteral("/nonexistent/ca.pem")
            << QStringLiteral("tcpRrTlsCaFileEdit") << false;
    }
    void tcpRrTlsRefusalsAreTheRules() {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, ca);
        QFETCH(QString, errorField);
        QFETCH(bool, sameAsBuilder);
        useTcpRr();
        field<QGroupBox>("tcpRrTlsGroup")->setChecked(true);
        QTest::keyClicks(field<QLineEdit>("tcpRrTlsCertFileEdit"), cert);
        QTest::keyClicks(field<QLineEdit>("tcpRrTlsKeyFileEdit"), key);
        QTest::keyClicks(field<QLineEdit>("tcpRrTlsCaFileEdit"), ca);
        QVERIFY(!m_editor->isValid());
        QVERIFY(target().tcpRr.tlsKeyFile.isEmpty() && target().tcpRr.tlsCaFile.isEmpty());
        // The error line sits right under its field in the form.
        FieldError* shown = nullptr;
        for (FieldError* error : m_editor->findChildren<FieldError*>())
            if (error->isVisible() && error->hasMessage())
                shown = error;
        QVERIFY(shown);
        const QWidget* edit = field<QLineEdit>(qPrintable(errorField));
        QVERIFY(shown->geometry().top() >= edit->geometry().bottom());
        if (sameAsBuilder) {
            Target candidate = target();
            candidate.tcpRr.tls = true;
            candidate.tcpRr.tlsCertFile = cert;
            candidate.tcpRr.tlsKeyFile = key;
            const auto draft = loadscope::app::draftLoadSpec(candidate, 1, {});
            QVERIFY(!draft);
            QCOMPARE(shown->message(), draft.error().message);
        } else {
            QVERIFY2(shown->message().contains(ca), qPrintable(shown->message()));
        }
    }

    // The window's fields and `tcp-rr --tls` with its flags make one spec: raw TLS, no ALPN.
    void theEditorAndTheCliGiveTheSameTcpRrTlsSpec() {
        const auto shot = loadscope::cli::parseTcpRrOneShot(
            {QStringLiteral("loadscope-cli tcp-rr"), QStringLiteral("-c"), QStringLiteral("2"),
             QStringLiteral("-n"), QStringLiteral("20"), QStringLiteral("--tls"),
             QStringLiteral("--insecure"), QStringLiteral("--no-tls-resume"),
             QStringLiteral("--tls-version"), QStringLiteral("1.2"), QStringLiteral("-r"),
             QStringLiteral("64,128"), QStringLiteral("127.0.0.1:9443")});
        QVERIFY2(shot, qPrintable(loadscope::testing::failureOf(shot)));
        useTcpRr();
        field<QSpinBox>("requestSizeSpin")->setValue(64);
        field<QSpinBox>("responseSizeSpin")->setValue(128);
        field<QGroupBox>("tcpRrTlsGroup")->setChecked(true);
        field<QCheckBox>("tcpRrTlsInsecureCheck")->setChecked(true);
        field<QCheckBox>("tcpRrTlsResumeCheck")->setChecked(false);
        auto* version = field<QComboBox>("tcpRrTlsVersionCombo");
        version->setCurrentIndex(version->findData(QStringLiteral("1.2")));
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().tcpRr, shot->target.tcpRr);

        loadscope::engine::TlsSpec tls;
        sameSpecAsTheCli(*shot, tls);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(tls.enabled && !tls.verify && !tls.resume);
        QVERIFY(tls.version == loadscope::engine::TlsVersion::Tls12);
        QCOMPARE(tls.alpn, std::string());
        QCOMPARE(tls.serverName, std::string("127.0.0.1"));
    }

    // An https target's TLS group: greyed for http://, on for https://; a client certificate
    // and its key reach the target and a target read back shows them; back on http:// the
    // group greys and the target keeps them.
    void httpsClientCertificateRoundTripsThroughTheTarget() {
        QTemporaryDir dir;
        const QString cert = writtenFile(dir, QStringLiteral("client.pem"));
        const QString key = writtenFile(dir, QStringLiteral("client.key"));
        auto* group = field<QGroupBox>("httpTlsGroup");
        auto* certFile = field<QLineEdit>("httpTlsCertFileEdit");
        auto* keyFile = field<QLineEdit>("httpTlsKeyFileEdit");
        QVERIFY(!group->isCheckable());
        QVERIFY(!certFile->isEnabled() && !keyFile->isEnabled());

        useHttps();
        QVERIFY(certFile->isEnabled() && keyFile->isEnabled());
        QTest::keyClicks(certFile, cert);
        QTest::keyClicks(keyFile, key);
        QVERIFY(m_editor->isValid());
        QCOMPARE(target().http.tlsCertFile, cert);
        QCOMPARE(target().http.tlsKeyFile, key);

        TargetEditor reread(m_document.get());
        reread.setTargetId(m_id);
        QCOMPARE(reread.findChild<QLineEdit*>(QStringLiteral("httpTlsCertFileEdit"))->text(), cert);
        QCOMPARE(reread.findChild<QLineEdit*>(QStringLiteral("httpTlsKeyFileEdit"))->text(), key);
        QVERIFY(reread.findChild<QLineEdit*>(QStringLiteral("httpTlsKeyFileEdit"))->isEnabled());

        auto* url = field<QLineEdit>("urlEdit");
        url->selectAll();
        QTest::keyClicks(url, QStringLiteral("http://127.0.0.1:8080/"));
        QVERIFY(!certFile->isEnabled());
        QCOMPARE(target().http.url, QStringLiteral("http://127.0.0.1:8080/"));
        QCOMPARE(target().http.tlsCertFile, cert);
    }

    // A key without a certificate on an https URL: refused under the key with the rule's words,
    // which the builder says too, and kept out of the session.
    void httpsKeyWithoutCertificateIsRefused() {
        QTemporaryDir dir;
        const QString key = writtenFile(dir, QStringLiteral("client.key"));
        useHttps();
        QTest::keyClicks(field<QLineEdit>("httpTlsKeyFileEdit"), key);
        QVERIFY(!m_editor->isValid());
        QVERIFY(target().http.tlsKeyFile.isEmpty());
        const auto rule = loadscope::app::checkTlsClientKey(QString(), key);
        QVERIFY(!rule);
        FieldError* shown = nullptr;
        for (FieldError* error : m_editor->findChildren<FieldError*>())
            if (error->isVisible() && error->hasMessage())
                shown = error;
        QVERIFY(shown);
        QCOMPARE(shown->message(), rule.error().message);
        QVERIFY(shown->geometry().top() >=
                field<QLineEdit>("httpTlsKeyFileEdit")->geometry().bottom());
        Target candidate = target();
        candidate.http.tlsKeyFile = key;
        const auto draft = loadscope::app::draftLoadSpec(candidate, 1, {});
        QVERIFY(!draft);
        QCOMPARE(draft.error().message, rule.error().message);
    }

    // The window's fields and `http --cert C --key K --insecure https://...` make one spec.
    void theEditorAndTheCliGiveTheSameHttpsSpec() {
        QTemporaryDir dir;
        const QString cert = writtenFile(dir, QStringLiteral("client.pem"));
        const QString key = writtenFile(dir, QStringLiteral("client.key"));
        const auto shot = loadscope::cli::parseHttpOneShot(
            {QStringLiteral("loadscope-cli http"), QStringLiteral("-c"), QStringLiteral("2"),
             QStringLiteral("-n"), QStringLiteral("20"), QStringLiteral("-k"),
             QStringLiteral("--cert"), cert, QStringLiteral("--key"), key,
             QStringLiteral("--insecure"), QStringLiteral("https://127.0.0.1:8443/")});
        QVERIFY2(shot, qPrintable(loadscope::testing::failureOf(shot)));
        useHttps();
        field<QCheckBox>("keepAliveCheck")->setChecked(true);
        QTest::keyClicks(field<QLineEdit>("httpTlsCertFileEdit"), cert);
        QTest::keyClicks(field<QLineEdit>("httpTlsKeyFileEdit"), key);
        field<QCheckBox>("httpTlsInsecureCheck")->setChecked(true);
        QVERIFY(m_editor->isValid());

        loadscope::engine::TlsSpec tls;
        sameSpecAsTheCli(*shot, tls);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(tls.enabled && !tls.verify);
        QCOMPARE(tls.certFile, cert.toStdString());
        QCOMPARE(tls.keyFile, key.toStdString());
    }

private:
    // The editor's target and `shot`'s make the same spec, TLS included; `windowTls` is the
    // editor's TLS.
    void sameSpecAsTheCli(const loadscope::cli::OneShot& shot,
                          loadscope::engine::TlsSpec& windowTls) {
        const auto fromCli = loadscope::app::draftLoadSpec(shot.target, 2, shot.plan);
        const auto fromWindow = loadscope::app::draftLoadSpec(target(), 2, shot.plan);
        QVERIFY2(fromCli && fromWindow, qPrintable(loadscope::testing::failureOf(fromWindow)));
        const QString differences =
            loadscope::testing::loadSpecDifferences(fromCli->spec, fromWindow->spec);
        QVERIFY2(differences.isEmpty(), qPrintable(differences));
        QVERIFY(fromCli->spec.tls == fromWindow->spec.tls);
        windowTls = fromWindow->spec.tls;
    }
    // The editor's target as https to 127.0.0.1:8443, typed.
    void useHttps() {
        auto* url = field<QLineEdit>("urlEdit");
        url->selectAll();
        QTest::keyClicks(url, QStringLiteral("https://127.0.0.1:8443/"));
        QCOMPARE(target().http.url, QStringLiteral("https://127.0.0.1:8443/"));
    }
    // A file named `name` in `dir`, there for the fields' is-it-there check.
    static QString writtenFile(const QTemporaryDir& dir, const QString& name) {
        const QString path = dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        file.write("-----BEGIN PEM-----\n");
        return path;
    }

    // The editor's target as tcp-rr to 127.0.0.1:9443.
    void useTcpRr() {
        auto* protocol = field<QComboBox>("protocolCombo");
        protocol->setCurrentIndex(protocol->findData(int(TargetProtocol::TcpRr)));
        QTest::keyClicks(field<QLineEdit>("tcpRrAddressEdit"), QStringLiteral("127.0.0.1:9443"));
        QCOMPARE(target().protocol, TargetProtocol::TcpRr);
    }
};

QTEST_MAIN(TstTargetEditorTls)
#include "tst_target_editor_tls.moc"
