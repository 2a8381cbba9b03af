#include "app/servers/http_server.h"
#include "app/session/session_document.h"
#include "ui/shell/lab_targets_dialog.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/target_table_model.h"
#include "ui/shell/targets_page.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::SessionDocument;
using loadscope::app::Target;
using loadscope::ui::TargetsPage;

class TstTargetsPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        m_document = std::make_unique<SessionDocument>();
        QVERIFY(m_document->open(QStringLiteral("demo-proxy")));
        m_page = std::make_unique<TargetsPage>(m_document.get());
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_page->resize(1100, 700);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        m_page->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_page.get()));
    }
    void cleanup() {
        m_tester.reset();
        m_page.reset();
        m_document.reset();
    }

    void theFirstTargetIsSelectedAndEdited() {
        QCOMPARE(m_page->selectedTargetId(), targets().front().id);
        QCOMPARE(m_page->editor()->targetId(), targets().front().id);
    }

    void addWalksThroughTheModesKeepingTheProtocol() {
        action("addTargetAction")->trigger();
        QCOMPARE(targets().size(), size_t(3));
        const Target& added = targets().back();
        // demo-proxy measures host and userland-proxy: the next unused mode comes next.
        QCOMPARE(added.mode, DeploymentMode::ContainerHostNetwork);
        QCOMPARE(added.http.url, targets()[0].http.url);
        QCOMPARE(m_page->selectedTargetId(), added.id);
        QVERIFY(added.colour != targets()[0].colour);
    }

    void duplicateCopiesTheSelectedTarget() {
        m_page->selectTarget(targets()[1].id);
        action("duplicateTargetAction")->trigger();
        QCOMPARE(targets().size(), size_t(3));
        QCOMPARE(targets()[2].http.url, targets()[1].http.url);
        QCOMPARE(targets()[2].name, QStringLiteral("userland-proxy copy"));
        QVERIFY(targets()[2].id != targets()[1].id);
    }

    void removeMoveAndBaseline() {
        const QUuid first = targets()[0].id;
        const QUuid second = targets()[1].id;
        QVERIFY(!action("baselineAction")->isEnabled()); // the first one already is
        QVERIFY(!action("moveTargetUpAction")->isEnabled());

        action("moveTargetDownAction")->trigger();
        QCOMPARE(targets()[1].id, first);
        QCOMPARE(m_page->selectedTargetId(), first);
        QVERIFY(action("moveTargetUpAction")->isEnabled());
        QVERIFY(!action("moveTargetDownAction")->isEnabled());

        m_page->selectTarget(second);
        QVERIFY(action("baselineAction")->isEnabled());
        action("baselineAction")->trigger();
        QCOMPARE(m_document->session().baseline()->id, second);
        QVERIFY(!action("baselineAction")->isEnabled());

        action("removeTargetAction")->trigger();
        QCOMPARE(targets().size(), size_t(1));
        QCOMPARE(targets()[0].id, first);
        QCOMPARE(m_page->selectedTargetId(), first);
    }

    void shortcutsWorkOnThePage() {
        auto* table = m_page->findChild<QWidget*>(QStringLiteral("targetTable"));
        table->setFocus();
        QTest::keyClick(table, Qt::Key_D, Qt::ControlModifier);
        QCOMPARE(targets().size(), size_t(3));
        QTest::keyClick(table, Qt::Key_Delete);
        QCOMPARE(targets().size(), size_t(2));
    }

    void tabGoesFromTheSessionToTheListToTheEditor() {
        QWidget* session = m_page->findChild<QWidget*>(QStringLiteral("sessionNameEdit"));
        QStringList order;
        QWidget* widget = session;
        do {
            if (widget->focusPolicy() & Qt::TabFocus && !widget->objectName().isEmpty())
                order << widget->objectName();
            widget = widget->nextInFocusChain();
        } while (widget != session);
        const auto at = [&order](const char* name) {
            return order.indexOf(QLatin1String(name));
        };
        QVERIFY2(at("sessionNameEdit") < at("notesEdit"), qPrintable(order.join(u' ')));
        QVERIFY2(at("notesEdit") < at("targetTable"), qPrintable(order.join(u' ')));
        QVERIFY2(at("targetTable") < at("nameEdit"), qPrintable(order.join(u' ')));
        QVERIFY2(at("nameEdit") < at("modeCombo"), qPrintable(order.join(u' ')));
        QVERIFY2(at("modeCombo") < at("urlEdit"), qPrintable(order.join(u' ')));
    }

    void sessionNameAndNotes() {
        auto* name = m_page->findChild<QLineEdit*>(QStringLiteral("sessionNameEdit"));
        auto* notes = m_page->findChild<QPlainTextEdit*>(QStringLiteral("notesEdit"));
        QCOMPARE(name->text(), m_document->session().name);
        QVERIFY(notes->toPlainText().contains(QStringLiteral("loadscope-cli serve http")));
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("proxy check"));
        QCOMPARE(m_document->session().name, QStringLiteral("proxy check"));
        notes->selectAll();
        QTest::keyClicks(notes, QStringLiteral("on bench-2"));
        QCOMPARE(m_document->session().notes, QStringLiteral("on bench-2"));
    }

    void probeShowsTheServer() {
        loadscope::app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        Target target = targets()[0];
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
        QVERIFY(m_document->updateTarget(target));

        QSignalSpy finished(m_page.get(), &TargetsPage::probeFinished);
        QAction* probe = action("probeAction");
        probe->trigger();
        QVERIFY(m_page->isProbing());
        QVERIFY(!probe->isEnabled());
        QVERIFY(finished.wait(10000));
        QVERIFY(finished.at(0).at(2).toBool());
        QVERIFY(probe->isEnabled());
        const QString shown = m_page->findChild<QLabel*>(QStringLiteral("probeStatus"))->text();
        QVERIFY2(shown.contains(QString::number(server.documentSize())), qPrintable(shown));
        server.stop();
    }

    // "host answers: …, 7.0 ms": the time once, not "7.0 ms (7.0 ms)".
    void probeSaysItsTimeOnce() {
        loadscope::app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        Target target = targets()[0];
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
        QVERIFY(m_document->updateTarget(target));
        QSignalSpy finished(m_page.get(), &TargetsPage::probeFinished);
        action("probeAction")->trigger();
        QVERIFY(finished.wait(10000));
        QVERIFY(finished.at(0).at(2).toBool());
        const QString shown = m_page->findChild<QLabel*>(QStringLiteral("probeStatus"))->text();
        QCOMPARE(shown.count(QStringLiteral(" ms")), 1);
        server.stop();
    }

    // What a probe said is about the session it was made in.
    void aProbesWordsGoWithItsSession() {
        QTcpServer placeholder;
        QVERIFY(placeholder.listen(QHostAddress::LocalHost));
        const quint16 port = placeholder.serverPort();
        placeholder.close();
        Target target = targets()[0];
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
        QVERIFY(m_document->updateTarget(target));
        auto* status = m_page->findChild<QLabel*>(QStringLiteral("probeStatus"));
        const QString hint = status->text();
        QSignalSpy finished(m_page.get(), &TargetsPage::probeFinished);
        action("probeAction")->trigger();
        QVERIFY(finished.wait(10000));
        auto* error = m_page->findChild<QLabel*>(QStringLiteral("probeError"));
        QVERIFY(error->isVisible());

        QVERIFY(m_document->open(QStringLiteral("tcp-rr")));
        QVERIFY(!error->isVisible());
        QVERIFY(error->text().isEmpty());
        QCOMPARE(status->text(), hint);
    }

    // The palette's eighth colour is a colour: a black line or bar reads as the chart's ink.
    void theEighthTargetHasAColour() {
        while (targets().size() < 8)
            action("addTargetAction")->trigger();
        QStringList seen;
        for (const Target& target : targets()) {
            const QColor colour = QColor::fromString(target.colour);
            QVERIFY2(colour.lightness() > 60 && colour.hsvSaturation() > 100,
                     qPrintable(target.colour));
            QVERIFY2(!seen.contains(target.colour), qPrintable(target.colour));
            seen << target.colour;
        }
    }

    void probeShowsTheError() {
        // A port that was free a moment ago: nothing listens there.
        QTcpServer placeholder;
        QVERIFY(placeholder.listen(QHostAddress::LocalHost));
        const quint16 port = placeholder.serverPort();
        placeholder.close();
        Target target = targets()[0];
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
        QVERIFY(m_document->updateTarget(target));

        QSignalSpy finished(m_page.get(), &TargetsPage::probeFinished);
        action("probeAction")->trigger();
        QVERIFY(finished.wait(10000));
        QVERIFY(!finished.at(0).at(2).toBool());
        auto* error = m_page->findChild<QLabel*>(QStringLiteral("probeError"));
        QVERIFY(error->isVisible());
        QVERIFY(!error->text().isEmpty());
    }

    // The page is closed while its probe waits for the answer. The probe still ends (the server
    // sees the request, answers, and sees the probe close its connection), and its result
    // goes nowhere: a page made at once in the old one's place, on the same document (likely
    // in the very memory the old one had), neither shows it nor says that a probe finished.
    void aProbeOutlivingThePageIsDropped() {
        QTcpServer server; // answers when told
        QVERIFY(server.listen(QHostAddress::LocalHost));
        Target target = targets()[0];
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.serverPort());
        QVERIFY(m_document->updateTarget(target));
        action("probeAction")->trigger();
        QTRY_VERIFY(server.hasPendingConnections());
        QTcpSocket* probe = server.nextPendingConnection();
        QTRY_VERIFY(probe->peek(65536).contains("\r\n\r\n")); // the whole request came
        QVERIFY(probe->peek(65536).startsWith("GET / HTTP/1.1\r\n"));

        m_tester.reset();
        m_page.reset();
        m_page = std::make_unique<TargetsPage>(m_document.get());
        QSignalSpy finished(m_page.get(), &TargetsPage::probeFinished);
        const auto* status = m_page->findChild<QLabel*>(QStringLiteral("probeStatus"));
        const auto* error = m_page->findChild<QLabel*>(QStringLiteral("probeError"));
        const QString hint = status->text(); // what a page says before any probe
        QVERIFY(hint.startsWith(QStringLiteral("Probe sends one request")));

        probe->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        // The probe read the answer and ended: it closed its side (the server keeps its own).
        QTRY_COMPARE(probe->state(), QAbstractSocket::UnconnectedState);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(status->text(), hint);
        QVERIFY2(error->text().isEmpty(), qPrintable(error->text()));
    }

    void addLabTargetsOpensTheDialogWithoutWaitingForTheCheck() {
        action("addLabTargetsAction")->trigger();
        auto* dialog = m_page->findChild<loadscope::ui::LabTargetsDialog*>();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        // The page is back in the event loop while the machine is checked.
        QVERIFY(dialog->isChecking());
        QSignalSpy answered(dialog, &loadscope::ui::LabTargetsDialog::availabilityChanged);
        QTRY_COMPARE_WITH_TIMEOUT(answered.count(), 1, 60000);
        dialog->reject();
        QCOMPARE(targets().size(), size_t(2));
        QVERIFY(!m_document->isModified());
    }

    // The editor's whole width is in view for every protocol's form: the page
    // gives the form what it needs rather than hiding its right edge (the
    // certificate fields, the HTTP/2 options) behind a horizontal scroll bar.
    void everyProtocolFormFitsItsWidth() {
        auto* scroll = m_page->findChild<QScrollArea*>(QStringLiteral("targetEditorScroll"));
        QVERIFY(scroll);
        auto* protocol = m_page->editor()->findChild<QComboBox*>(QStringLiteral("protocolCombo"));
        QVERIFY(protocol);
        QVERIFY(protocol->count() >= 4);
        for (int i = 0; i < protocol->count(); ++i) {
            protocol->setCurrentIndex(i);
            QTRY_VERIFY2(scroll->viewport()->width() >= m_page->editor()->minimumSizeHint().width(),
                         qPrintable(QStringLiteral("%1: %2 px shown of a form %3 px wide")
                                        .arg(protocol->currentText())
                                        .arg(scroll->viewport()->width())
                                        .arg(m_page->editor()->minimumSizeHint().width())));
            QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        }
    }

private:
    QAction* action(const char* name) const {
        for (QAction* a : m_page->targetActions()) {
            if (a->objectName() == QLatin1String(name))
                return a;
        }
        qFatal("no action %s", name);
    }
    const std::vector<Target>& targets() const { return m_document->session().targets; }

    std::unique_ptr<SessionDocument> m_document;
    std::unique_ptr<TargetsPage> m_page;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

QTEST_MAIN(TstTargetsPage)
#include "tst_targets_page.moc"
