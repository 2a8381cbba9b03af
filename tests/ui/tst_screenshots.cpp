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
    void rateSweepRunsThroughTheWindow();
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

    for (const char* page : {"targets", "sweep", "run", "compare", "compare-cpu", "compare-table",
                             "lab-dialog", "compare-cpu-paths"}) {
        const QString path = out.filePath(QString::fromLatin1(page) + QStringLiteral(".png"));
        QImage image;
        QVERIFY2(image.load(path), qPrintable(path));
        QCOMPARE(image.size(), QString::fromLatin1(page) == u"compare-cpu-paths"
                                   ? QSize(1600, 560)
                                   : QSize(1280, 800));
        QVERIFY2(greyVariance(image) > 100, qPrintable(path));
        QVERIFY2(printed.contains(path.toUtf8()), printed.constData());
    }
}

// The rate-sweep picture comes from a measured sweep run through the Run page:
// a small one here (two rates, two modes, two repetitions) must measure every
// point and leave a Compare page that shows something.
void TestScreenshots::rateSweepRunsThroughTheWindow() {
    const QString renderer = qEnvironmentVariable("LOADSCOPE_SCREENSHOTS");
    QVERIFY2(!renderer.isEmpty(), "LOADSCOPE_SCREENSHOTS is not set");
    QTemporaryDir out;
    QVERIFY(out.isValid());
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(renderer, {QStringLiteral("--rate-sweep"), out.path(), QStringLiteral("--rates"),
                             QStringLiteral("500,2000"), QStringLiteral("--point-seconds"),
                             QStringLiteral("0.4")});
    QVERIFY(process.waitForStarted());
    QVERIFY2(process.waitForFinished(120000), "the rate sweep did not finish within 2 minutes");
    const QByteArray printed = process.readAllStandardOutput();
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, printed.constData());
    const QString path = out.filePath(QStringLiteral("compare-rate-sweep.png"));
    QImage image;
    QVERIFY2(image.load(path), qPrintable(path));
    QCOMPARE(image.size(), QSize(1280, 800));
    QVERIFY2(greyVariance(image) > 100, qPrintable(path));
}

QTEST_GUILESS_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
