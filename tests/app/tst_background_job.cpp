// BackgroundJob: work runs on another thread and its result comes back on
// the caller's; a superseded or cancelled job's result is dropped, and none
// reaches a deleted receiver.

#include "app/common/background_job.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>

using loadscope::app::BackgroundJob;
using loadscope::app::JobCheck;

namespace {

// A receiver that announces each result it is handed.
class Receiver : public QObject {
    Q_OBJECT

public:
    BackgroundJob job{this};

    void start(int value, int delayMs) {
        job.start(
            [value, delayMs](const JobCheck&) {
                QThread::msleep(static_cast<unsigned long>(delayMs));
                return value;
            },
            [this](int result) {
                appliedOn = QThread::currentThread();
                Q_EMIT valueAvailable(result);
            });
    }

    QThread* appliedOn = nullptr;

Q_SIGNALS:
    void valueAvailable(int value);
};

} // namespace

class TestBackgroundJob : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resultComesBackOnTheCallersThread() {
        Receiver receiver;
        QSignalSpy applied(&receiver, &Receiver::valueAvailable);
        std::atomic<QThread*> ranOn{nullptr};
        receiver.job.start(
            [&ranOn](const JobCheck&) {
                ranOn = QThread::currentThread();
                return 42;
            },
            [&receiver](int value) {
                receiver.appliedOn = QThread::currentThread();
                Q_EMIT receiver.valueAvailable(value);
            });
        QTRY_COMPARE(applied.count(), 1);
        QCOMPARE(applied.at(0).at(0).toInt(), 42);
        QVERIFY(ranOn.load() != nullptr);
        QVERIFY(ranOn.load() != QThread::currentThread());
        QCOMPARE(receiver.appliedOn, QThread::currentThread());
        QVERIFY(!receiver.job.isRunning());
    }

    void supersededResultIsDropped() {
        Receiver receiver;
        QSignalSpy applied(&receiver, &Receiver::valueAvailable);
        receiver.start(1, 300); // slow, and finishes last
        receiver.start(2, 0);
        QVERIFY(receiver.job.isRunning());
        QTRY_COMPARE(applied.count(), 1);
        QCOMPARE(applied.at(0).at(0).toInt(), 2);
        // The first job's result arrives later and must not be applied.
        QTest::qWait(600);
        QCOMPARE(applied.count(), 1);
        QVERIFY(!receiver.job.isRunning());
    }

    void supersededResultIsDroppedEvenWhenItFinishesFirst() {
        Receiver receiver;
        QSignalSpy applied(&receiver, &Receiver::valueAvailable);
        receiver.start(1, 0);
        receiver.start(2, 200);
        QTRY_COMPARE(applied.count(), 1);
        QCOMPARE(applied.at(0).at(0).toInt(), 2);
        QTest::qWait(100);
        QCOMPARE(applied.count(), 1);
    }

    void cancelledResultIsDropped() {
        Receiver receiver;
        QSignalSpy applied(&receiver, &Receiver::valueAvailable);
        receiver.start(7, 100);
        receiver.job.cancel();
        QVERIFY(!receiver.job.isRunning());
        QTest::qWait(400);
        QCOMPARE(applied.count(), 0);
    }

    void deletedReceiverGetsNothing() {
        auto applied = std::make_shared<std::atomic<int>>(0);
        auto receiver = std::make_unique<QObject>();
        // Kept alive on purpose, so that only the receiver's end stops delivery.
        BackgroundJob job(receiver.get());
        job.start(
            [](const JobCheck&) {
                QThread::msleep(100);
                return 1;
            },
            [applied](int) { ++*applied; });
        receiver.reset(); // the window closed while its job ran
        QTest::qWait(400);
        QCOMPARE(applied->load(), 0);

        // The same job with its receiver alive does deliver: the check above can fail.
        auto alive = std::make_unique<QObject>();
        BackgroundJob delivering(alive.get());
        delivering.start([](const JobCheck&) { return 1; }, [applied](int) { ++*applied; });
        QTRY_COMPARE(applied->load(), 1);
    }

    void runningJobSeesItWasSuperseded() {
        Receiver receiver;
        auto sawCancel = std::make_shared<std::atomic<bool>>(false);
        receiver.job.start(
            [sawCancel](const JobCheck& check) {
                // Bounded: gives up after 5 s whatever happens.
                for (int i = 0; i < 500 && !check.cancelled(); ++i)
                    QThread::msleep(10);
                *sawCancel = check.cancelled();
                return 0;
            },
            [](int) {});
        receiver.start(3, 0);
        QTRY_VERIFY(sawCancel->load());
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "tst_background_job.moc"
