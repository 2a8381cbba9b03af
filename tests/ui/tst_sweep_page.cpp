#include "app/session/session_document.h"
#include "app/stats/sweep_estimate.h"
#include "tests/app/result_message.h"
#include "ui/common/field_error.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/sweep_plan_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRadioButton>
#include <QSpinBox>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::PointLimit;
using loadscope::app::PointResult;
using loadscope::app::Session;
using loadscope::app::SessionDocument;
using loadscope::app::SweepOrder;
using loadscope::app::SweepPlan;
using loadscope::ui::SweepPage;

namespace {

Session twoTargets() {
    Session session;
    session.targets.push_back(
        loadscope::app::makeTarget(QStringLiteral("a"), DeploymentMode::Host, 0));
    session.targets.push_back(
        loadscope::app::makeTarget(QStringLiteral("b"), DeploymentMode::ContainerNat, 1));
    session.plan.concurrencyLevels = {1, 10};
    session.plan.limit = PointLimit::Duration;
    session.plan.durationSeconds = 5;
    session.plan.repetitions = 3;
    session.plan.warmupSeconds = 0;
    session.plan.pauseSeconds = 0;
    return session;
}

} // namespace

class TstSweepPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        m_document = std::make_unique<SessionDocument>();
        m_document->reset(twoTargets());
        m_page = std::make_unique<SweepPage>(m_document.get());
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    }
    void cleanup() {
        m_page.reset();
        m_document.reset();
    }

    void parsesLevels_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("levels"); // empty: refused
        QTest::newRow("commas") << QStringLiteral("1, 10, 100, 1000")
                                << QList<int>{1, 10, 100, 1000};
        QTest::newRow("spaces") << QStringLiteral(" 50 5  500") << QList<int>{50, 5, 500};
        QTest::newRow("semicolons") << QStringLiteral("1;2") << QList<int>{1, 2};
        QTest::newRow("empty") << QString() << QList<int>{};
        QTest::newRow("word") << QStringLiteral("1, ten") << QList<int>{};
        QTest::newRow("zero") << QStringLiteral("0, 10") << QList<int>{};
        QTest::newRow("twice") << QStringLiteral("10, 10") << QList<int>{};
        QTest::newRow("too many") << QStringLiteral("2000000") << QList<int>{};
        QTest::newRow("negative") << QStringLiteral("-5") << QList<int>{};
    }
    void parsesLevels() {
        QFETCH(QString, text);
        QFETCH(QList<int>, levels);
        const auto parsed = loadscope::ui::parseConcurrencyLevels(text);
        if (levels.isEmpty()) {
            QVERIFY(!parsed);
            QVERIFY(!parsed.error().message.isEmpty());
            return;
        }
        QVERIFY2(parsed, qPrintable(loadscope::testing::failureOf(parsed)));
        QCOMPARE(QList<int>(parsed->begin(), parsed->end()), levels);
        const auto again =
            loadscope::ui::parseConcurrencyLevels(loadscope::ui::formatConcurrencyLevels(*parsed));
        QVERIFY(again);
        QCOMPARE(*again, *parsed);
    }

    void parsesCpus_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QList<int>>("cpus");
        QTest::addColumn<QString>("formatted");
        QTest::newRow("none") << QString() << true << QList<int>{} << QString();
        QTest::newRow("list") << QStringLiteral("0,2, 4") << true << QList<int>{0, 2, 4}
                              << QStringLiteral("0,2,4");
        QTest::newRow("ranges") << QStringLiteral("0-3,8,9") << true << QList<int>{0, 1, 2, 3, 8, 9}
                                << QStringLiteral("0-3,8-9");
        QTest::newRow("backwards") << QStringLiteral("3-1") << false << QList<int>{} << QString();
        QTest::newRow("garbage") << QStringLiteral("0-") << false << QList<int>{} << QString();
        QTest::newRow("negative") << QStringLiteral("-1") << false << QList<int>{} << QString();
        // Worker thread i runs on the i-th CPU: the order is the user's.
        QTest::newRow("order kept")
            << QStringLiteral("3,1,2") << true << QList<int>{3, 1, 2} << QStringLiteral("3,1-2");
    }
    void parsesCpus() {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(QList<int>, cpus);
        QFETCH(QString, formatted);
        const auto parsed = loadscope::app::parseCpuList(text);
        QCOMPARE(bool(parsed), ok);
        if (!ok) {
            QVERIFY(!parsed.error().message.isEmpty());
            return;
        }
        QCOMPARE(QList<int>(parsed->begin(), parsed->end()), cpus);
        QCOMPARE(loadscope::ui::formatCpuList(*parsed), formatted);
    }

    void formatsSeconds() {
        QCOMPARE(loadscope::ui::formatSeconds(45), QStringLiteral("45 s"));
        QCOMPARE(loadscope::ui::formatSeconds(260), QStringLiteral("4 min 20 s"));
        QCOMPARE(loadscope::ui::formatSeconds(7380), QStringLiteral("2 h 03 min"));
        QCOMPARE(loadscope::ui::formatSeconds(2.5), QStringLiteral("2.5 s"));
    }

    void estimatesDurationSweeps() {
        Session session = twoTargets(); // 2 levels x 2 targets x 3 repetitions = 12 points
        auto estimate = loadscope::app::estimateSweep(session);
        QCOMPARE(estimate.points, 12);
        QCOMPARE(estimate.missingPoints, 12);
        QCOMPARE(estimate.totalSeconds, 60.0);
        session.plan.warmupSeconds = 1;
        session.plan.pauseSeconds = 2;
        estimate = loadscope::app::estimateSweep(session);
        QCOMPARE(estimate.totalSeconds, 12 * 6.0 + 11 * 2.0);
        QCOMPARE(estimate.unknownPoints, 0);
    }

    void estimatesThePrecisionRange() {
        Session session = twoTargets(); // 12 points of 5 s at the least 3 repetitions
        session.plan.precisionPercent = 2;
        session.plan.maxRepetitions = 10;
        session.plan.pauseSeconds = 1;
        const auto estimate = loadscope::app::estimateSweep(session);
        QCOMPARE(estimate.points, 12);
        QCOMPARE(estimate.totalSeconds, 12 * 5.0 + 11 * 1.0);
        QCOMPARE(estimate.mostPoints, 40);
        QCOMPARE(estimate.mostSeconds, 40 * 5.0 + 39 * 1.0);
        session.plan.precisionPercent = 0;
        QCOMPARE(loadscope::app::estimateSweep(session).mostPoints, 12);
    }

    void precisionIsEditedOnThePage() {
        auto* precision = field<QDoubleSpinBox>("precisionSpin");
        auto* most = field<QSpinBox>("maxRepetitionsSpin");
        QCOMPARE(precision->text(), QStringLiteral("off"));
        QVERIFY(!most->isEnabled());
        precision->setValue(2);
        most->setValue(10);
        QCOMPARE(plan().precisionPercent, 2.0);
        QCOMPARE(plan().maxRepetitions, 10);
        QCOMPARE(precision->text(), QStringLiteral("±2.0 %"));
        QCOMPARE(most->text(), QStringLiteral("up to 10 repetitions"));
        // 12 points of 5 s at the least, 40 at the most.
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("1 min 00 s … 3 min 20 s"));
        QVERIFY2(
            field<QLabel>("estimatePoints")->text().contains(QStringLiteral("up to 40 points")),
            qPrintable(field<QLabel>("estimatePoints")->text()));
        // Fewer most than least repetitions: said, not stored.
        most->setValue(2);
        QVERIFY(!m_page->isValid());
        QCOMPARE(plan().maxRepetitions, 10);
    }

    void estimatesRequestSweepsFromMeasuredRates() {
        Session session = twoTargets();
        session.plan.limit = PointLimit::Requests;
        session.plan.requestsPerPoint = 1000;
        auto estimate = loadscope::app::estimateSweep(session);
        QCOMPARE(estimate.unknownPoints, 12);

        // Target a did 500 requests/s at level 1: 2 s per 1000 requests, used for level 10 too.
        PointResult result;
        result.targetId = session.targets[0].id;
        result.concurrency = 1;
        result.repetition = 0;
        result.complete = 1000;
        result.durationSeconds = 2;
        session.putResult(result);
        estimate = loadscope::app::estimateSweep(session);
        QCOMPARE(estimate.missingPoints, 11);
        QCOMPARE(estimate.unknownPoints, 6); // target b has no rate yet
        QCOMPARE(estimate.totalSeconds, 6 * 2.0);
        QCOMPARE(estimate.remainingSeconds, 5 * 2.0);
    }

    // A hidden page (the window shows another) builds its estimate when it is
    // shown; what it shows then is the session's, points done included.
    void hiddenPageShowsTheSessionsEstimateWhenShown() {
        m_page->hide();
        Session session = twoTargets();
        for (int repetition = 0; repetition < 3; ++repetition) {
            PointResult result;
            result.targetId = session.targets[0].id;
            result.concurrency = 1;
            result.repetition = repetition;
            result.complete = 1000;
            result.durationSeconds = 5;
            session.putResult(result);
        }
        m_document->reset(session);
        QVERIFY2(m_page->estimateText().contains(QStringLiteral("12 points")),
                 qPrintable(m_page->estimateText()));
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        // 12 points of 5 s; a's three at c=1 are done.
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("about 1 min 00 s"));
        QCOMPARE(field<QLabel>("estimateRemaining")->text(),
                 QStringLiteral("9 points still to run: about 45 s."));
        auto* order = field<QListWidget>("pointOrderList");
        QCOMPARE(order->count(), 12);
        int done = 0;
        for (int i = 0; i < order->count(); ++i)
            done += order->item(i)->text().endsWith(QStringLiteral("(done)")) ? 1 : 0;
        QCOMPARE(done, 3);
        QVERIFY2(order->item(0)->text().endsWith(
                     QStringLiteral("a at concurrency 1, repetition 1  (done)")),
                 qPrintable(order->item(0)->text()));
    }

    void showsThePlan() {
        QCOMPARE(field<QLineEdit>("levelsEdit")->text(), QStringLiteral("1, 10"));
        QVERIFY(field<QRadioButton>("byDurationRadio")->isChecked());
        QCOMPARE(field<QDoubleSpinBox>("durationSpin")->value(), 5.0);
        QVERIFY(!field<QDoubleSpinBox>("requestsSpin")->isEnabled());
        QCOMPARE(field<QSpinBox>("repetitionsSpin")->value(), 3);
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("about 1 min 00 s"));
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("12 points")));
    }

    void typingLevelsChangesThePlanAndTheEstimate() {
        auto* levels = field<QLineEdit>("levelsEdit");
        levels->selectAll();
        QTest::keyClicks(levels, QStringLiteral("1, 10, 100"));
        QCOMPARE(plan().concurrencyLevels, (std::vector<int>{1, 10, 100}));
        QVERIFY(m_document->isModified());
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("18 points")));
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("about 1 min 30 s"));
    }

    void invalidLevelsAreSaidAndNotStored() {
        auto* levels = field<QLineEdit>("levelsEdit");
        levels->selectAll();
        QTest::keyClicks(levels, QStringLiteral("1, 1"));
        QVERIFY(field<loadscope::ui::FieldError>("levelsError")->isVisible());
        QVERIFY(!m_page->isValid());
        // The plan keeps what was last valid while typing ("1").
        QCOMPARE(plan().concurrencyLevels, (std::vector<int>{1}));
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("6 points")));
        QTest::keyClicks(levels, QStringLiteral("00"));
        QVERIFY(!field<loadscope::ui::FieldError>("levelsError")->isVisible());
        QCOMPARE(plan().concurrencyLevels, (std::vector<int>{1, 100}));
    }

    void otherFieldsReachThePlan() {
        field<QRadioButton>("byRequestsRadio")->click();
        QCOMPARE(plan().limit, PointLimit::Requests);
        QVERIFY(field<QDoubleSpinBox>("requestsSpin")->isEnabled());
        field<QDoubleSpinBox>("requestsSpin")->setValue(50000);
        QCOMPARE(plan().requestsPerPoint, uint64_t(50000));
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("Unknown"));

        field<QRadioButton>("byDurationRadio")->click();
        field<QDoubleSpinBox>("durationSpin")->setValue(10);
        field<QSpinBox>("threadsSpin")->setValue(4);
        field<QDoubleSpinBox>("warmupSpin")->setValue(1);
        field<QSpinBox>("repetitionsSpin")->setValue(5);
        field<QDoubleSpinBox>("pauseSpin")->setValue(2);
        QTest::keyClicks(field<QLineEdit>("cpusEdit"), QStringLiteral("0-1"));
        const SweepPlan& p = plan();
        QCOMPARE(p.limit, PointLimit::Duration);
        QCOMPARE(p.durationSeconds, 10.0);
        QCOMPARE(p.threads, 4);
        QCOMPARE(p.warmupSeconds, 1.0);
        QCOMPARE(p.repetitions, 5);
        QCOMPARE(p.pauseSeconds, 2.0);
        QCOMPARE(p.cpus, (std::vector<int>{0, 1}));
        // 20 points x (1 + 10) s + 19 pauses x 2 s = 258 s
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("about 4 min 18 s"));

        QTest::keyClicks(field<QLineEdit>("cpusEdit"), QStringLiteral(",x"));
        QVERIFY(field<loadscope::ui::FieldError>("cpusError")->isVisible());
        QCOMPARE(plan().cpus, (std::vector<int>{0, 1}));
    }

    void orderIsExplained() {
        auto* order = field<QComboBox>("orderCombo");
        auto* explanation = field<QLabel>("orderExplanation");
        const QString interleaved = explanation->text();
        order->setCurrentIndex(order->findData(int(SweepOrder::Sequential)));
        QCOMPARE(plan().order, SweepOrder::Sequential);
        QVERIFY(explanation->text() != interleaved);
    }

    void aPlanChangedElsewhereIsShown() {
        SweepPlan changed = plan();
        changed.concurrencyLevels = {8, 16};
        changed.repetitions = 1;
        m_document->setPlan(changed);
        QCOMPARE(field<QLineEdit>("levelsEdit")->text(), QStringLiteral("8, 16"));
        QCOMPARE(field<QSpinBox>("repetitionsSpin")->value(), 1);
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("4 points")));

        m_document->addTarget(
            loadscope::app::makeTarget(QStringLiteral("c"), DeploymentMode::Macvlan, 2));
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("6 points")));
    }

    void rateLevelsReachThePlan() {
        auto* kind = field<QComboBox>("levelKindCombo");
        auto* rates = field<QLineEdit>("rateLevelsEdit");
        QVERIFY(!rates->isVisible());
        kind->setCurrentIndex(kind->findData(int(loadscope::app::SweepLevelKind::Rate)));
        QVERIFY(rates->isVisible());
        QVERIFY(!field<QLineEdit>("levelsEdit")->isVisible());
        rates->selectAll();
        QTest::keyClicks(rates, QStringLiteral("500, 1.5k 4000"));
        field<QSpinBox>("rateConnectionsSpin")->setValue(20);
        auto* arrival = field<QComboBox>("arrivalCombo");
        arrival->setCurrentIndex(arrival->findData(int(loadscope::engine::Arrival::Poisson)));
        auto* slack = field<QSpinBox>("timerSlackSpin");
        QVERIFY(slack->isVisible());
        QCOMPARE(slack->value(), 0); // none unless asked for
        slack->setValue(500);
        const SweepPlan& p = plan();
        QCOMPARE(p.levelKind, loadscope::app::SweepLevelKind::Rate);
        QCOMPARE(p.rateLevels, (std::vector<double>{500, 1500, 4000}));
        QCOMPARE(p.rateConnections, 20);
        QCOMPARE(p.arrival, loadscope::engine::Arrival::Poisson);
        QCOMPARE(p.timerSlackUs, 500);
        // 3 rates x 2 targets x 3 repetitions of 5 s.
        QVERIFY(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("18 points")));
        QCOMPARE(field<QLabel>("estimateTime")->text(), QStringLiteral("about 1 min 30 s"));
        // The points name their rate.
        QVERIFY(field<QListWidget>("pointOrderList")
                    ->item(0)
                    ->text()
                    .contains(QStringLiteral("500 req/s")));
    }

    void aPlansTimerSlackIsShownAndBounded() {
        SweepPlan changed = plan();
        changed.levelKind = loadscope::app::SweepLevelKind::Rate;
        changed.timerSlackUs = 250;
        m_document->setPlan(changed);
        auto* slack = field<QSpinBox>("timerSlackSpin");
        QCOMPARE(slack->value(), 250);
        // The field cannot hold more than a session file may (1000 us).
        slack->setValue(5000);
        QCOMPARE(plan().timerSlackUs, 1000);
        // It belongs to rate levels: hidden at concurrency levels.
        auto* kind = field<QComboBox>("levelKindCombo");
        kind->setCurrentIndex(kind->findData(int(loadscope::app::SweepLevelKind::Concurrency)));
        QVERIFY(!slack->isVisible());
    }

    // On unless the plan says otherwise; the box and the plan follow each other.
    void wakeCoalescingFollowsThePlan() {
        auto* box = field<QCheckBox>("wakeCoalescingCheck");
        QVERIFY(plan().wakeCoalescing);
        QVERIFY(box->isChecked());
        box->setChecked(false);
        QVERIFY(!plan().wakeCoalescing);
        SweepPlan changed = plan();
        changed.wakeCoalescing = true;
        m_document->setPlan(changed);
        QVERIFY(box->isChecked());
    }

    // Off unless the plan asks for it (lab targets do); the box and the plan follow each other.
    void profileFollowsThePlan() {
        auto* box = field<QCheckBox>("profileCheck");
        QVERIFY(!plan().profile);
        QVERIFY(!box->isChecked());
        box->setChecked(true);
        QVERIFY(plan().profile);
        SweepPlan changed = plan();
        changed.profile = false;
        m_document->setPlan(changed);
        QVERIFY(!box->isChecked());
    }

    void invalidRatesAreSaidAndNotStored() {
        auto* kind = field<QComboBox>("levelKindCombo");
        kind->setCurrentIndex(kind->findData(int(loadscope::app::SweepLevelKind::Rate)));
        auto* rates = field<QLineEdit>("rateLevelsEdit");
        const std::vector<double> before = plan().rateLevels;
        for (const QString& bad :
             {QStringLiteral("100, 100"), QStringLiteral("fast"), QStringLiteral("0"), QString()}) {
            // Whole, as a paste: typed, its first characters would be a valid plan.
            rates->setText(bad);
            Q_EMIT rates->textEdited(bad);
            QVERIFY2(field<loadscope::ui::FieldError>("rateLevelsError")->isVisible(),
                     qPrintable(bad));
            QVERIFY(!m_page->isValid());
        }
        QCOMPARE(plan().rateLevels, before);
        const auto parsed = loadscope::ui::parseRateLevels(QStringLiteral("100, 100"));
        QVERIFY(!parsed);
        QVERIFY(parsed.error().message.contains(QStringLiteral("listed twice")));
    }

    void aCapacityObjectiveReachesThePlan() {
        auto* kind = field<QComboBox>("levelKindCombo");
        auto* objective = field<QWidget>("capacityFields");
        QVERIFY(!objective->isVisible());
        kind->setCurrentIndex(kind->findData(int(loadscope::app::SweepLevelKind::Capacity)));
        // The search's steps are fixed-rate at the plan's connections, at
        // rates and lengths of its own: no levels, no duration.
        QVERIFY(objective->isVisible());
        QVERIFY(field<QSpinBox>("rateConnectionsSpin")->isVisible());
        QVERIFY(field<QComboBox>("arrivalCombo")->isVisible());
        QVERIFY(!field<QLineEdit>("rateLevelsEdit")->isVisible());
        QVERIFY(!field<QLineEdit>("levelsEdit")->isVisible());
        QVERIFY(!field<QDoubleSpinBox>("durationSpin")->isVisible());
        QCOMPARE(plan().levelKind, loadscope::app::SweepLevelKind::Capacity);

        auto* percentile = field<QComboBox>("capacityPercentileCombo");
        percentile->setCurrentIndex(percentile->findData(99.9));
        field<QDoubleSpinBox>("capacityBoundSpin")->setValue(2.5);
        field<QCheckBox>("capacityJudgeFailedCheck")->setChecked(true);
        field<QDoubleSpinBox>("capacityMaxFailedSpin")->setValue(0.5);
        field<QDoubleSpinBox>("capacityPrecisionSpin")->setValue(2);
        field<QSpinBox>("capacityMaxStepsSpin")->setValue(9);
        field<QDoubleSpinBox>("capacityMinStepSpin")->setValue(0.5);
        field<QDoubleSpinBox>("capacityMaxStepSpin")->setValue(10);
        field<QSpinBox>("rateConnectionsSpin")->setValue(64);
        const loadscope::app::CapacityPlan& capacity = plan().capacity;
        QCOMPARE(capacity.objective.percentile, 99.9);
        QCOMPARE(capacity.objective.boundMs, 2.5);
        QCOMPARE(capacity.objective.maxFailedPercent, std::optional<double>(0.5));
        QVERIFY(!capacity.objective.minAchievedPercent);
        QCOMPARE(capacity.precisionPercent, 2.0);
        QCOMPARE(capacity.maxSteps, 9);
        QCOMPARE(capacity.minStepSeconds, 0.5);
        QCOMPARE(capacity.maxStepSeconds, 10.0);
        QCOMPARE(plan().rateConnections, 64);
        // 2 targets x 3 repetitions: six searches, each somewhere in its budget.
        QVERIFY2(field<QLabel>("estimatePoints")->text().startsWith(QStringLiteral("6 searches")),
                 qPrintable(field<QLabel>("estimatePoints")->text()));
        QVERIFY(field<QLabel>("estimateTime")->text().contains(QStringLiteral(" … ")));
        QVERIFY(field<QListWidget>("pointOrderList")
                    ->item(0)
                    ->text()
                    .contains(QStringLiteral("capacity search at 64 connections")));

        // The longest step shorter than the shortest: said, and not stored.
        field<QDoubleSpinBox>("capacityMaxStepSpin")->setValue(0.2);
        QVERIFY(!m_page->isValid());
        QVERIFY(field<loadscope::ui::FieldError>("planError")
                    ->message()
                    .contains(QStringLiteral("is shorter than the shortest")));
        QCOMPARE(plan().capacity.maxStepSeconds, 10.0);

        // A plan opened from a file shows its objective.
        SweepPlan changed = plan();
        changed.capacity.objective.percentile = 99;
        changed.capacity.objective.boundMs = 7;
        changed.capacity.objective.minAchievedPercent = 90;
        m_document->setPlan(changed);
        QCOMPARE(percentile->currentData().toDouble(), 99.0);
        QCOMPARE(field<QDoubleSpinBox>("capacityBoundSpin")->value(), 7.0);
        QVERIFY(field<QCheckBox>("capacityJudgeAchievedCheck")->isChecked());
        QCOMPARE(field<QDoubleSpinBox>("capacityMinAchievedSpin")->value(), 90.0);
    }

private:
    template <typename T> T* field(const char* name) const {
        auto* widget = m_page->findChild<T*>(QString::fromLatin1(name));
        if (!widget)
            qFatal("no field %s", name);
        return widget;
    }
    const SweepPlan& plan() const { return m_document->session().plan; }

    std::unique_ptr<SessionDocument> m_document;
    std::unique_ptr<SweepPage> m_page;
};

QTEST_MAIN(TstSweepPage)
#include "tst_sweep_page.moc"
