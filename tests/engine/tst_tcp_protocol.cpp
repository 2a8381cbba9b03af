#include "engine/tcp_protocol.h"

#include <QTest>
#include <string>
#include <vector>

using namespace loadscope::engine;

namespace {

using Status = FeedResult::Status;

struct Outcome {
    Status status;
    uint64_t bodyBytes;
    bool operator==(const Outcome&) const = default;
};

// Feeds `stream` in pieces ending at `cuts` the way the engine does, stopping
// at the first Malformed; finishAtEof closes the stream.
std::vector<Outcome> run(ProtocolSession& session, std::string_view stream,
                         const std::vector<size_t>& cuts, bool closeAtEnd) {
    std::vector<Outcome> outcomes;
    size_t begin = 0;
    std::vector<size_t> ends = cuts;
    ends.push_back(stream.size());
    for (size_t end : ends) {
        std::string_view piece = stream.substr(begin, end - begin);
        begin = end;
        while (!piece.empty()) {
            const FeedResult r = session.feed(piece);
            if (r.status == Status::NeedMore) {
                if (r.consumed != piece.size())
                    outcomes.push_back({Status::NeedMore, 999}); // contract broken
                break;
            }
            outcomes.push_back({r.status, r.info.bodyBytes});
            if (r.status == Status::Malformed)
                return outcomes;
            piece.remove_prefix(r.consumed);
        }
    }
    if (closeAtEnd) {
        const FeedResult r = session.finishAtEof();
        if (r.status != Status::NeedMore)
            outcomes.push_back({r.status, r.info.bodyBytes});
    }
    return outcomes;
}

} // namespace

class TestTcpProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void requestBytes_data();
    void requestBytes();
    void responsesAtEveryBoundary_data();
    void responsesAtEveryBoundary();
    void moreBytesThanResponse_data();
    void moreBytesThanResponse();
    void fewerBytesThenClose();
    void closeBetweenTransactions();
    void resetForgetsOutstanding();
    void connectPerTransaction();
    void validation();
    void stream();
};

void TestTcpProtocol::requestBytes_data() {
    QTest::addColumn<uint32_t>("requestSize");
    QTest::newRow("netperf default") << 1u;
    QTest::newRow("100 bytes") << 100u;
    QTest::newRow("64 KiB + 1") << 65537u;
}

void TestTcpProtocol::requestBytes() {
    QFETCH(uint32_t, requestSize);
    TcpRrSpec spec;
    spec.requestSize = requestSize;
    TcpRrProtocol protocol(spec);
    QCOMPARE(protocol.requestBytes().size(), size_t(requestSize));
    QVERIFY(!protocol.isStream());
    QVERIFY(protocol.keepAlive());
    QCOMPARE(protocol.operationNames(), std::vector<std::string>{"transaction"});

    auto session = protocol.newSession(0, 1);
    std::string out = "prefix";
    session->appendRequest(out);
    session->appendRequest(out);
    QCOMPARE(out.size(), 6 + 2 * size_t(requestSize));
    QCOMPARE(out.substr(6, requestSize), protocol.requestBytes());
    QCOMPARE(out.substr(6 + requestSize), protocol.requestBytes());
}

void TestTcpProtocol::responsesAtEveryBoundary_data() {
    QTest::addColumn<uint32_t>("responseSize");
    QTest::addColumn<int>("depth");
    QTest::newRow("1 byte") << 1u << 1;
    QTest::newRow("7 bytes") << 7u << 1;
    QTest::newRow("1 byte, pipelined 5") << 1u << 5;
    QTest::newRow("7 bytes, pipelined 3") << 7u << 3;
    QTest::newRow("1000 bytes, pipelined 2") << 1000u << 2;
}

void TestTcpProtocol::responsesAtEveryBoundary() {
    QFETCH(uint32_t, responseSize);
    QFETCH(int, depth);
    TcpRrSpec spec;
    spec.responseSize = responseSize;
    TcpRrProtocol protocol(spec);
    const std::string stream(size_t(responseSize) * depth, 'r');
    const std::vector<Outcome> expected(size_t(depth), Outcome{Status::Complete, responseSize});

    auto fresh = [&] {
        auto session = protocol.newSession(0, 1);
        std::string out;
        for (int i = 0; i < depth; ++i)
            session->appendRequest(out);
        return session;
    };
    QCOMPARE(run(*fresh(), stream, {}, true), expected);
    for (size_t cut = 1; cut < stream.size(); ++cut)
        QVERIFY2(run(*fresh(), stream, {cut}, true) == expected,
                 qPrintable(QStringLiteral("cut %1").arg(cut)));
    std::vector<size_t> everyByte;
    for (size_t i = 1; i < stream.size(); ++i)
        everyByte.push_back(i);
    QCOMPARE(run(*fresh(), stream, everyByte, true), expected);
}

void TestTcpProtocol::moreBytesThanResponse_data() {
    QTest::addColumn<uint32_t>("responseSize");
    QTest::addColumn<int>("extra");
    QTest::addColumn<bool>("sameRead");
    QTest::newRow("1+1 in one read") << 1u << 1 << true;
    QTest::newRow("1+1 in two reads") << 1u << 1 << false;
    QTest::newRow("10+5 in one read") << 10u << 5 << true;
    QTest::newRow("10+100 in two reads") << 10u << 100 << false;
}

void TestTcpProtocol::moreBytesThanResponse() {
    QFETCH(uint32_t, responseSize);
    QFETCH(int, extra);
    QFETCH(bool, sameRead);
    TcpRrSpec spec;
    spec.responseSize = responseSize;
    TcpRrProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    const std::string stream(responseSize + size_t(extra), 'r');
    const std::vector<size_t> cuts =
        sameRead ? std::vector<size_t>{} : std::vector<size_t>{responseSize};
    const std::vector<Outcome> outcomes = run(*session, stream, cuts, false);
    QCOMPARE(outcomes,
             (std::vector<Outcome>{{Status::Complete, responseSize}, {Status::Malformed, 0}}));
    QCOMPARE(session->lastError(), "peer sent more than " + std::to_string(responseSize) +
                                       " bytes in response to a request");
}

void TestTcpProtocol::fewerBytesThenClose() {
    TcpRrSpec spec;
    spec.responseSize = 10;
    TcpRrProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    QCOMPARE(int(session->feed("123").status), int(Status::NeedMore));
    QCOMPARE(int(session->feed("4567").status), int(Status::NeedMore));
    QCOMPARE(int(session->finishAtEof().status), int(Status::Malformed));
    QCOMPARE(session->lastError(),
             std::string_view("connection closed after 7 of 10 response bytes"));

    // Closed with a request outstanding and nothing received: cut short too.
    auto quiet = protocol.newSession(1, 1);
    quiet->appendRequest(out);
    QCOMPARE(int(quiet->finishAtEof().status), int(Status::Malformed));
    QCOMPARE(quiet->lastError(), std::string_view("connection closed before the response"));
}

void TestTcpProtocol::closeBetweenTransactions() {
    TcpRrProtocol protocol{TcpRrSpec{}};
    auto session = protocol.newSession(0, 1);
    QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
    std::string out;
    session->appendRequest(out);
    const FeedResult r = session->feed("x");
    QCOMPARE(int(r.status), int(Status::Complete));
    QCOMPARE(r.consumed, size_t(1));
    QCOMPARE(r.info.bodyBytes, uint64_t(1));
    QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
}

void TestTcpProtocol::resetForgetsOutstanding() {
    TcpRrSpec spec;
    spec.responseSize = 4;
    TcpRrProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    session->appendRequest(out);
    QCOMPARE(int(session->feed("ab").status), int(Status::NeedMore));
    session->resetConnection();
    QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
    QCOMPARE(int(session->feed("a").status), int(Status::Malformed));

    session->resetConnection();
    session->appendRequest(out);
    // The partial response of the old connection is not carried over.
    QCOMPARE(int(session->feed("abc").status), int(Status::NeedMore));
    const FeedResult r = session->feed("d");
    QCOMPARE(int(r.status), int(Status::Complete));
}

void TestTcpProtocol::connectPerTransaction() {
    TcpRrSpec spec;
    spec.connectPerTransaction = true;
    TcpRrProtocol protocol(spec);
    QVERIFY(!protocol.keepAlive());
    auto session = protocol.newSession(0, 1);
    for (int transaction = 0; transaction < 3; ++transaction) {
        session->resetConnection();
        std::string out;
        session->appendRequest(out);
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(int(session->feed("y").status), int(Status::Complete));
        QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
    }
}

void TestTcpProtocol::validation() {
    QVERIFY(!validateTcpRrSpec(TcpRrSpec{}));
    TcpRrSpec spec;
    spec.requestSize = 0;
    QVERIFY(validateTcpRrSpec(spec));
    spec = {};
    spec.responseSize = 0;
    QVERIFY(validateTcpRrSpec(spec));
    spec = {};
    spec.responseSize = kMaxTcpMessageBytes + 1;
    QVERIFY(validateTcpRrSpec(spec));
    QVERIFY(!validateTcpStreamSpec(TcpStreamSpec{}));
    QVERIFY(validateTcpStreamSpec(TcpStreamSpec{0}));
}

void TestTcpProtocol::stream() {
    TcpStreamProtocol protocol{TcpStreamSpec{}};
    QVERIFY(protocol.isStream());
    QVERIFY(protocol.keepAlive());
    QCOMPARE(protocol.streamChunk().size(), size_t(16 * 1024));
    QCOMPARE(TcpStreamProtocol(TcpStreamSpec{1000}).streamChunk().size(), size_t(1000));

    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    QCOMPARE(std::string_view(out), protocol.streamChunk());
    // A sink has nothing to say; whatever it sends is ignored, and closing is no error.
    const FeedResult r = session->feed("unexpected");
    QCOMPARE(int(r.status), int(Status::NeedMore));
    QCOMPARE(r.consumed, size_t(10));
    QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
}

QTEST_GUILESS_MAIN(TestTcpProtocol)
#include "tst_tcp_protocol.moc"
