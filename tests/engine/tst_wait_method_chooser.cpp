// The sole-connection wait chooser: it times both methods on the traffic it
// is given and keeps the faster, probing again after each long stretch.
#include "engine/wait_method_chooser.h"

#include <QTest>
#include <algorithm>
#include <vector>

using namespace loadscope::engine;
using Method = WaitMethodChooser::Method;

namespace {

constexpr WaitMethodChooser::Tuning kTuning{/*trialTransactions=*/10, /*trialsPerMethod=*/2,
                                            /*chosenTransactions=*/100, /*epollMarginPercent=*/3};

// Drives the chooser like a worker: each transaction takes the time its
// current method costs. Returns the methods used, one per transaction.
std::vector<Method> drive(WaitMethodChooser& chooser, int64_t& clock, int transactions,
                          int64_t recvNs, int64_t epollNs) {
    std::vector<Method> used;
    for (int i = 0; i < transactions; ++i) {
        used.push_back(chooser.method());
        clock += chooser.method() == Method::Recv ? recvNs : epollNs;
        chooser.transactionCompleted(clock);
    }
    return used;
}

// Transactions of a whole probe: trials alternate, plus the first completion,
// which only starts the clock.
constexpr int kProbe = 1 + 2 * 2 * 10;

} // namespace

class TestWaitMethodChooser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void startsByProbingWithRecv() {
        WaitMethodChooser chooser(kTuning);
        QVERIFY(chooser.probing());
        QCOMPARE(chooser.method(), Method::Recv);
    }

    void probeAlternatesTrialsOfEachMethod() {
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        const auto used = drive(chooser, clock, kProbe, 1000, 1000);
        // Completion 0 starts the clock; then 10 per trial: R, E, R, E.
        QCOMPARE(used[0], Method::Recv);
        for (int i = 1; i <= 10; ++i)
            QCOMPARE(used[size_t(i)], Method::Recv);
        for (int i = 11; i <= 20; ++i)
            QCOMPARE(used[size_t(i)], Method::Epoll);
        for (int i = 21; i <= 30; ++i)
            QCOMPARE(used[size_t(i)], Method::Recv);
        for (int i = 31; i <= 40; ++i)
            QCOMPARE(used[size_t(i)], Method::Epoll);
        QVERIFY(!chooser.probing());
    }

    void keepsTheFasterMethod_data() {
        QTest::addColumn<qint64>("recvNs");
        QTest::addColumn<qint64>("epollNs");
        QTest::addColumn<int>("expected");
        QTest::newRow("recv faster (shared CPU)")
            << qint64(7000) << qint64(7700) << int(Method::Recv);
        QTest::newRow("epoll faster (across CPUs)")
            << qint64(100000) << qint64(93000) << int(Method::Epoll);
        QTest::newRow("a tie keeps recv") << qint64(5000) << qint64(5000) << int(Method::Recv);
        QTest::newRow("epoll 1% faster is within the margin: recv")
            << qint64(100000) << qint64(99000) << int(Method::Recv);
    }
    void keepsTheFasterMethod() {
        QFETCH(qint64, recvNs);
        QFETCH(qint64, epollNs);
        QFETCH(int, expected);
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        drive(chooser, clock, kProbe, recvNs, epollNs);
        QVERIFY(!chooser.probing());
        QCOMPARE(int(chooser.method()), expected);
        // The whole stretch runs with the winner.
        const auto used = drive(chooser, clock, 99, recvNs, epollNs);
        for (Method m : used)
            QCOMPARE(int(m), expected);
        QVERIFY(!chooser.probing());
    }

    void probesAgainAndFollowsAChange() {
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        drive(chooser, clock, kProbe, 9000, 6000);
        QCOMPARE(chooser.method(), Method::Epoll);
        drive(chooser, clock, 100, 9000, 6000); // the stretch ends
        QVERIFY(chooser.probing());
        // The server moved: now recv wins.
        drive(chooser, clock, kProbe - 1, 6000, 9000);
        QVERIFY(!chooser.probing());
        QCOMPARE(chooser.method(), Method::Recv);
    }

    void aConfirmedWinnerRunsLongerBetweenProbes() {
        WaitMethodChooser::Tuning tuning = kTuning;
        tuning.maxStretchDoublings = 2;
        WaitMethodChooser chooser(tuning);
        int64_t clock = 0;
        drive(chooser, clock, kProbe, 7000, 7700);
        QCOMPARE(chooser.method(), Method::Recv);
        QCOMPARE(chooser.stretchTransactions(), uint64_t(100));
        for (const uint64_t next : {200, 400, 400}) {
            const int stretch = int(chooser.stretchTransactions());
            drive(chooser, clock, stretch - 1, 7000, 7700);
            QVERIFY(!chooser.probing());
            drive(chooser, clock, 1, 7000, 7700);
            QVERIFY(chooser.probing());
            drive(chooser, clock, kProbe - 1, 7000, 7700);
            QVERIFY(!chooser.probing());
            QCOMPARE(chooser.method(), Method::Recv);
            QCOMPARE(chooser.stretchTransactions(), next);
        }
    }

    void aNewWinnerRunsOneStretchBeforeTheNextProbe() {
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        drive(chooser, clock, kProbe, 7000, 7700);
        drive(chooser, clock, 100, 7000, 7700);
        drive(chooser, clock, kProbe - 1, 7000, 7700);
        QCOMPARE(chooser.stretchTransactions(), uint64_t(200));
        drive(chooser, clock, 200, 7000, 7700);
        // The server moved to another CPU: epoll wins and gets a single stretch.
        drive(chooser, clock, kProbe - 1, 9000, 6000);
        QCOMPARE(chooser.method(), Method::Epoll);
        QCOMPARE(chooser.stretchTransactions(), uint64_t(100));
        drive(chooser, clock, 99, 9000, 6000);
        QVERIFY(!chooser.probing());
        drive(chooser, clock, 1, 9000, 6000);
        QVERIFY(chooser.probing());
    }

    void timeBeforeTheFirstCompletionIsNotCharged() {
        WaitMethodChooser chooser(kTuning);
        // A slow connect and first response under recv: not part of any trial.
        int64_t clock = 5'000'000'000;
        chooser.transactionCompleted(clock);
        drive(chooser, clock, kProbe - 1, 7000, 7700);
        QCOMPARE(chooser.method(), Method::Recv);
    }

    // Told before each probe that the answers wake it from its own CPU, it runs no epoll
    // trial at all: recv, stretch after stretch, each confirmed stretch longer.
    void aSharedCpuSkipsTheProbe() {
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        chooser.transactionCompleted(clock); // the first completion starts the clock
        QVERIFY(chooser.probeStarting());
        chooser.keepRecvWithoutProbe();
        QVERIFY(!chooser.probing());
        std::vector<Method> used;
        for (const uint64_t stretch : {100, 200, 400}) {
            QCOMPARE(chooser.stretchTransactions(), stretch);
            const auto part = drive(chooser, clock, int(stretch), 9000, 1000);
            used.insert(used.end(), part.begin(), part.end());
            QVERIFY(chooser.probeStarting());
            chooser.keepRecvWithoutProbe();
        }
        QVERIFY(std::all_of(used.begin(), used.end(), [](Method m) { return m == Method::Recv; }));
        // Left to probe (the server moved to another CPU), it finds epoll faster.
        const int stretch = int(chooser.stretchTransactions());
        drive(chooser, clock, stretch, 9000, 1000);
        QVERIFY(chooser.probeStarting());
        drive(chooser, clock, kProbe - 1, 9000, 1000);
        QCOMPARE(chooser.method(), Method::Epoll);
    }

    void oneSlowTrialIsOutweighedByTheOthers() {
        // Recv is faster except for one trial disturbed by a stall; the
        // totals over two trials each still favour recv.
        WaitMethodChooser chooser(kTuning);
        int64_t clock = 0;
        drive(chooser, clock, 1, 7000, 8000);
        drive(chooser, clock, 10, 7000, 8000); // recv trial 1: 70 us
        drive(chooser, clock, 10, 7000, 8000); // epoll trial 1: 80 us
        drive(chooser, clock, 9, 7000, 8000);  // recv trial 2 ...
        drive(chooser, clock, 1, 12000, 8000); // ... one stalled transaction: 75 us
        drive(chooser, clock, 10, 7000, 8000); // epoll trial 2: 80 us
        QVERIFY(!chooser.probing());
        QCOMPARE(chooser.method(), Method::Recv);
    }
};

QTEST_GUILESS_MAIN(TestWaitMethodChooser)
#include "tst_wait_method_chooser.moc"
