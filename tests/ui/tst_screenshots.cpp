// scripts/render-screenshots.sh must keep producing the README's pictures:
// it runs here into a temporary directory, and every page's PNG must exist
// and show something.

#include "image_checks.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using loadscope::test::greyVariance;

class TestScreenshots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scriptRendersEveryPage();
};

void TestScreenshots::scriptRendersEveryPage() {
    const QString source = qEnvironmentVariable("LOADSCOPE_SOURCE_DIR");
    QVERIFY2(!source.isEmpty(), "LOADSCOPE_SOURCE_DIR is not set");
    QVERIFY2(!qEnvironmentVariableIsEmpty("LOADSCOPE_SCREENSHOTS"),
             "LOADSCOPE_SCREENSHOTS is not set");
    QTemporaryDir out;
    QVERIFY(out.isValid());

    QProcess script;
    script.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    script.start(QStringLiteral("bash"),
                 {source + QStringLiteral("/scripts/render-screenshots.sh"), out.path()});
    QVERIFY(script.waitForStarted());
    QVERIFY2(script.waitForFinished(180000), "the script did not finish within 3 minutes");
    const QByteArray printed = script.readAllStandardOutput();
    QCOMPARE(script.exitStatus(), QProcess::NormalExit);
    QVERIFY2(script.exitCode() == 0, printed.constData());

    for (const char* page : {"targets", "sweep", "run", "compare", "compare-cpu"}) {
        const QString path = out.filePath(QString::fromLatin1(page) + QStringLiteral(".png"));
        QImage image;
        QVERIFY2(image.load(path), qPrintable(path));
        QCOMPARE(image.size(), QSize(1280, 800));
        QVERIFY2(greyVariance(image) > 100, qPrintable(path));
        QVERIFY2(printed.contains(path.toUtf8()), printed.constData());
    }
}

QTEST_GUILESS_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
