// The load generator's saturation warning: given for a run long enough to
// judge whose threads were on CPU most of the time, and never for a run so
// short that start-up dominates its CPU figure.
#include "app/report/ab_report.h"

#include <QTest>

using namespace loadscope;

namespace {

engine::RunResult runWith(double seconds, double cpuSeconds, uint32_t threads) {
    engine::RunResult r;
    r.durationSeconds = seconds;
    r.clientCpuSeconds = cpuSeconds;
    r.threads = threads;
    r.complete = 1000;
    return r;
}

} // namespace

class TestSaturationWarning : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void warnsOnlyWhenTheClientWasTheBottleneck_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<double>("cpuSeconds");
        QTest::addColumn<int>("threads");
        QTest::addColumn<QString>("expected"); // the percentage quoted, or empty
        QTest::newRow("one thread busy 95%") << 10.0 << 9.5 << 1 << QStringLiteral("95%");
        QTest::newRow("two threads busy 92%") << 5.0 << 9.2 << 2 << QStringLiteral("92%");
        QTest::newRow("half busy") << 10.0 << 5.0 << 1 << QString();
        QTest::newRow("two threads, one idle") << 10.0 << 10.0 << 2 << QString();
        QTest::newRow("a 0.4 ms run is start-up, not saturation")
            << 0.0004 << 0.002 << 1 << QString();
        QTest::newRow("0.3 s, too short to judge") << 0.3 << 0.3 << 1 << QString();
        QTest::newRow("0.5 s busy is judged") << 0.5 << 0.49 << 1 << QStringLiteral("98%");
    }
    void warnsOnlyWhenTheClientWasTheBottleneck() {
        QFETCH(double, seconds);
        QFETCH(double, cpuSeconds);
        QFETCH(int, threads);
        QFETCH(QString, expected);
        const QString warning =
            app::saturationWarning(runWith(seconds, cpuSeconds, uint32_t(threads)));
        if (expected.isEmpty()) {
            QVERIFY2(warning.isEmpty(), qPrintable(warning));
            return;
        }
        QVERIFY2(warning.startsWith(QStringLiteral("warning: ")), qPrintable(warning));
        QVERIFY2(warning.contains(expected), qPrintable(warning));
        QVERIFY(!warning.contains(QLatin1Char('\n')));
    }
};

QTEST_GUILESS_MAIN(TestSaturationWarning)
#include "tst_saturation_warning.moc"
