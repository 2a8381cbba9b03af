#include "app/session/session_document.h"
#include "ui/shell/import_dialog.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::SessionDocument;
using loadscope::app::TargetProtocol;
using loadscope::ui::ImportDialog;

namespace {

QString fixture(const QString& name) {
    return qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
           QStringLiteral("/tests/app/fixtures/import/") + name;
}

} // namespace

class TstImportDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!qEnvironmentVariableIsEmpty("LOADSCOPE_SOURCE_DIR"),
                 "run through ctest, which says where the fixtures are");
    }

    void importsIntoANewTarget() {
        SessionDocument document;
        document.addTarget(
            loadscope::app::makeTarget(QStringLiteral("host"), DeploymentMode::Host, 0));
        document.setModified(false);
        ImportDialog dialog(&document);
        dialog.setFiles({fixture(QStringLiteral("ab_2.3_keepalive.txt"))});
        dialog.setTargetName(QStringLiteral("nat (ab)"));
        dialog.setMode(QStringLiteral("container-nat"));
        QSignalSpy finished(&dialog, &ImportDialog::importFinished);

        QVERIFY2(dialog.importFiles(), qPrintable(dialog.errorMessage()));
        QCOMPARE(finished.count(), 1);
        QVERIFY(finished.at(0).at(0).toString().contains(QStringLiteral("new target")));
        const auto& session = document.session();
        QCOMPARE(session.targets.size(), size_t(2));
        QCOMPARE(session.targets[1].name, QStringLiteral("nat (ab)"));
        QCOMPARE(session.targets[1].mode, DeploymentMode::ContainerNat);
        QCOMPARE(session.targets[1].protocol, TargetProtocol::Http);
        QCOMPARE(session.results.size(), size_t(1));
        QCOMPARE(session.results[0].targetId, session.targets[1].id);
        QVERIFY(document.isModified());

        // The same output twice is refused, and nothing changes.
        QVERIFY(!dialog.importFiles());
        QVERIFY(!dialog.errorMessage().isEmpty());
        QCOMPARE(document.session().results.size(), size_t(1));
    }

    void aFileNotRecognisedAddsNothing() {
        QTemporaryDir dir;
        const QString notes = dir.filePath(QStringLiteral("notes.txt"));
        QFile file(notes);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("ran ab twice, numbers looked fine\n");
        file.close();

        SessionDocument document;
        ImportDialog dialog(&document);
        dialog.setFiles({fixture(QStringLiteral("ab_2.3_close.txt")), notes});
        dialog.setTargetName(QStringLiteral("host"));
        QVERIFY(!dialog.importFiles());
        QVERIFY2(dialog.errorMessage().contains(QStringLiteral("notes.txt")),
                 qPrintable(dialog.errorMessage()));
        QVERIFY(document.session().targets.empty());
        QVERIFY(document.session().results.empty());
        QVERIFY(!document.isModified());
    }
};

QTEST_MAIN(TstImportDialog)
#include "tst_import_dialog.moc"
