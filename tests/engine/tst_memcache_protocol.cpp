#include "engine/memcache_protocol.h"
#include "memcache_replies.h"

#include <QTest>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace loadscope::engine;
using namespace loadscope::engine::testing;

namespace {

using Status = FeedResult::Status;

} // namespace

class TestMemcacheProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void requestBytes();
    void defaultRequestBytes();
    void ratio_data();
    void ratio();
    void pipelinedSession();
    void sessionRejectsReplyToWrongCommand();
    void sessionErrorReplyKeepsMessage();
    void sessionReset();
    void determinism();
    void sequentialSetThenGetHitsSameKeys();
    void preloadCoversRangeOnce_data();
    void preloadCoversRangeOnce();
    void validation();
    void optionParsing();
};

void TestMemcacheProtocol::requestBytes() {
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 1;
    spec.setKeyPattern = KeyPattern::Sequential;
    spec.getKeyPattern = KeyPattern::Sequential;
    spec.keyMinimum = 7;
    spec.keyMaximum = 8;
    spec.keyPrefix = "key:";
    spec.valueSize = 5;
    spec.flags = 3;
    spec.expiry = 60;
    spec.connections = 1;
    MemcacheProtocol protocol(spec);
    QCOMPARE(protocol.operationNames(), (std::vector<std::string>{"set", "get"}));
    QCOMPARE(protocol.operationNames()[kMemcacheSetOperation], std::string("set"));
    QCOMPARE(protocol.operationNames()[kMemcacheGetOperation], std::string("get"));
    QVERIFY(protocol.keepAlive());
    QVERIFY(!protocol.isStream());

    auto session = protocol.newSession(0, 1);
    std::string out;
    for (int i = 0; i < 6; ++i)
        session->appendRequest(out);
    QCOMPARE(out, std::string("set key:7 3 60 5\r\nabcde\r\n"
                              "get key:7\r\n"
                              "set key:8 3 60 5\r\nabcde\r\n"
                              "get key:8\r\n"
                              "set key:7 3 60 5\r\nabcde\r\n"
                              "get key:7\r\n"));
}

void TestMemcacheProtocol::defaultRequestBytes() {
    MemcacheProtocol protocol{MemcacheSpec{}};
    auto session = protocol.newSession(3, 42);
    std::string out;
    session->appendRequest(out); // the cycle starts with its set
    const std::string head = "set memtier-";
    QVERIFY(out.starts_with(head));
    const size_t blank = out.find(' ', head.size());
    QVERIFY(blank != std::string::npos);
    const uint64_t key = std::stoull(out.substr(head.size(), blank - head.size()));
    QVERIFY(key <= 10'000'000);
    std::string value;
    for (int i = 0; i < 32; ++i)
        value.push_back(char('a' + i % 26));
    QCOMPARE(out.substr(blank), " 0 0 32\r\n" + value + "\r\n");

    out.clear();
    session->appendRequest(out);
    QVERIFY(out.starts_with("get memtier-"));
    QVERIFY(out.ends_with("\r\n"));
    QCOMPARE(std::count(out.begin(), out.end(), ' '), std::ptrdiff_t(1));
}

void TestMemcacheProtocol::ratio_data() {
    QTest::addColumn<uint32_t>("sets");
    QTest::addColumn<uint32_t>("gets");
    QTest::newRow("1:10") << 1u << 10u;
    QTest::newRow("3:7") << 3u << 7u;
    QTest::newRow("2:2") << 2u << 2u;
    QTest::newRow("5:3") << 5u << 3u;
    QTest::newRow("1:0") << 1u << 0u;
    QTest::newRow("0:1") << 0u << 1u;
    QTest::newRow("1:1000") << 1u << 1000u;
}

void TestMemcacheProtocol::ratio() {
    QFETCH(uint32_t, sets);
    QFETCH(uint32_t, gets);
    MemcacheSpec spec;
    spec.setRatio = sets;
    spec.getRatio = gets;
    MemcacheProtocol protocol(spec);

    const uint64_t cycle = uint64_t(sets) + gets;
    for (uint32_t connection : {0u, 5u}) {
        auto session = protocol.newSession(connection, 9);
        std::string out;
        uint64_t totalSets = 0;
        uint64_t setsInCycle = 0;
        const uint64_t commands = cycle * 1000;
        for (uint64_t n = 0; n < commands; ++n) {
            out.clear();
            session->appendRequest(out);
            const bool isSet = out.starts_with("set ");
            QVERIFY(isSet || out.starts_with("get "));
            totalSets += isSet;
            setsInCycle += isSet;
            if ((n + 1) % cycle == 0) {
                QCOMPARE(setsInCycle, uint64_t(sets)); // exact in every cycle, not only on average
                setsInCycle = 0;
            }
        }
        QCOMPARE(totalSets, uint64_t(sets) * 1000);
    }
}

void TestMemcacheProtocol::pipelinedSession() {
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 1;
    MemcacheProtocol protocol(spec);
    const std::string replies =
        "STORED\r\n" + valueBlock("memtier-1", trickyData(40)) + "END\r\nSTORED\r\nEND\r\n";

    struct Seen {
        uint8_t operation;
        int hit;
        uint64_t bytes;
        bool operator==(const Seen&) const = default;
    };
    const std::vector<Seen> expected{{kMemcacheSetOperation, -1, 0},
                                     {kMemcacheGetOperation, 1, 40},
                                     {kMemcacheSetOperation, -1, 0},
                                     {kMemcacheGetOperation, 0, 0}};

    for (size_t cut = 0; cut <= replies.size(); ++cut) {
        auto session = protocol.newSession(0, 1);
        std::string out;
        for (int i = 0; i < 4; ++i)
            session->appendRequest(out);
        std::vector<Seen> seen;
        for (std::string_view piece :
             {std::string_view(replies).substr(0, cut), std::string_view(replies).substr(cut)}) {
            while (!piece.empty()) {
                const FeedResult r = session->feed(piece);
                QVERIFY(r.status != Status::Malformed);
                if (r.status == Status::NeedMore)
                    break;
                seen.push_back({r.info.operation, r.info.hit, r.info.bodyBytes});
                piece.remove_prefix(r.consumed);
            }
        }
        QVERIFY2(seen == expected, qPrintable(QStringLiteral("cut %1").arg(cut)));
        QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
        // Nothing is outstanding any more: one more byte is a protocol violation.
        QCOMPARE(int(session->feed("E").status), int(Status::Malformed));
    }
}

void TestMemcacheProtocol::sessionRejectsReplyToWrongCommand() {
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 0;
    MemcacheProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    QVERIFY(out.starts_with("set "));
    QCOMPARE(int(session->feed("END\r\n").status), int(Status::Malformed));
    QVERIFY(!session->lastError().empty());

    auto idle = protocol.newSession(1, 1);
    QCOMPARE(int(idle->feed("STORED\r\n").status), int(Status::Malformed));
    QCOMPARE(int(idle->finishAtEof().status), int(Status::NeedMore));

    // A request outstanding and the peer gone: cut short even with no byte of it.
    auto waiting = protocol.newSession(2, 1);
    waiting->appendRequest(out);
    QCOMPARE(int(waiting->finishAtEof().status), int(Status::Malformed));
}

void TestMemcacheProtocol::sessionErrorReplyKeepsMessage() {
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 0;
    MemcacheProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out);
    session->appendRequest(out);
    const FeedResult r = session->feed("SERVER_ERROR out of memory storing object\r\nSTORED\r\n");
    QCOMPARE(int(r.status), int(Status::Complete));
    QVERIFY(r.info.errorReply);
    QCOMPARE(r.info.operation, kMemcacheSetOperation);
    QCOMPARE(r.info.hit, int8_t(-1));
    QCOMPARE(session->lastError(), std::string_view("SERVER_ERROR out of memory storing object"));
    const FeedResult next = session->feed("STORED\r\n");
    QCOMPARE(int(next.status), int(Status::Complete));
    QVERIFY(!next.info.errorReply);
}

void TestMemcacheProtocol::sessionReset() {
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 1;
    MemcacheProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    std::string out;
    session->appendRequest(out); // set
    session->appendRequest(out); // get
    QCOMPARE(int(session->feed("STOR").status), int(Status::NeedMore));
    session->resetConnection();
    QCOMPARE(int(session->finishAtEof().status), int(Status::NeedMore));
    QCOMPARE(int(session->feed("X").status), int(Status::Malformed));

    session->resetConnection();
    out.clear();
    session->appendRequest(out); // the cycle goes on: set
    QVERIFY(out.starts_with("set "));
    const FeedResult r = session->feed("STORED\r\n");
    QCOMPARE(int(r.status), int(Status::Complete));
    QCOMPARE(r.info.operation, kMemcacheSetOperation);
}

void TestMemcacheProtocol::determinism() {
    MemcacheSpec spec;
    spec.setKeyPattern = KeyPattern::Random;
    spec.getKeyPattern = KeyPattern::Gaussian;
    MemcacheProtocol protocol(spec);
    auto requests = [&](uint32_t connection, uint64_t seed) {
        auto session = protocol.newSession(connection, seed);
        std::string out;
        for (int i = 0; i < 500; ++i)
            session->appendRequest(out);
        return out;
    };
    QCOMPARE(requests(0, 7), requests(0, 7));
    QCOMPARE(requests(4, 7), requests(4, 7));
    QVERIFY(requests(0, 7) != requests(0, 8));
    QVERIFY(requests(0, 7) != requests(1, 7));
}

void TestMemcacheProtocol::sequentialSetThenGetHitsSameKeys() {
    // S:S at 1:1: every get asks for the key its connection has just set.
    MemcacheSpec spec;
    spec.setRatio = 1;
    spec.getRatio = 1;
    spec.setKeyPattern = KeyPattern::Sequential;
    spec.getKeyPattern = KeyPattern::Sequential;
    spec.keyMinimum = 100;
    spec.keyMaximum = 199;
    spec.connections = 4;
    MemcacheProtocol protocol(spec);
    std::set<std::string> firstKeys;
    for (uint32_t c = 0; c < 4; ++c) {
        auto session = protocol.newSession(c, 1);
        for (int i = 0; i < 250; ++i) {
            std::string set;
            std::string get;
            session->appendRequest(set);
            session->appendRequest(get);
            const std::string key = set.substr(4, set.find(' ', 4) - 4);
            QCOMPARE(get, "get " + key + "\r\n");
            if (i == 0)
                firstKeys.insert(key);
        }
    }
    // Each connection starts a quarter of the range further on.
    QCOMPARE(firstKeys,
             (std::set<std::string>{"memtier-100", "memtier-125", "memtier-150", "memtier-175"}));
}

void TestMemcacheProtocol::preloadCoversRangeOnce_data() {
    QTest::addColumn<uint64_t>("minimum");
    QTest::addColumn<uint64_t>("maximum");
    QTest::addColumn<uint32_t>("connections");
    QTest::newRow("20 keys, 3 connections") << uint64_t(10) << uint64_t(29) << 3u;
    QTest::newRow("one connection") << uint64_t(0) << uint64_t(99) << 1u;
    QTest::newRow("even split") << uint64_t(0) << uint64_t(99) << 4u;
    QTest::newRow("as many connections as keys") << uint64_t(5) << uint64_t(9) << 5u;
    QTest::newRow("more connections than keys") << uint64_t(0) << uint64_t(2) << 8u;
    QTest::newRow("10001 keys, 100 connections") << uint64_t(0) << uint64_t(10'000) << 100u;
}

void TestMemcacheProtocol::preloadCoversRangeOnce() {
    QFETCH(uint64_t, minimum);
    QFETCH(uint64_t, maximum);
    QFETCH(uint32_t, connections);
    MemcacheSpec spec;
    spec.keyMinimum = minimum;
    spec.keyMaximum = maximum;
    spec.keyPrefix = "p";
    spec.valueSize = 2;
    MemcachePreloadProtocol protocol(spec);
    QCOMPARE(protocol.keyCount(), maximum - minimum + 1);
    QCOMPARE(protocol.operationNames(), std::vector<std::string>{"set"});

    std::vector<std::unique_ptr<ProtocolSession>> sessions;
    for (uint32_t c = 0; c < connections; ++c)
        sessions.push_back(protocol.newSession(c, 1));
    // The engine hands requests to connections unevenly: connection 0 takes
    // every other request, the rest share the others in turn.
    std::multiset<uint64_t> keys;
    for (uint64_t i = 0; i < protocol.keyCount(); ++i) {
        const size_t index = i % 2 == 0 || connections == 1 ? 0 : 1 + (i / 2) % (connections - 1);
        ProtocolSession& session = *sessions[index];
        std::string out;
        session.appendRequest(out);
        QVERIFY(out.starts_with("set p"));
        QVERIFY(out.ends_with(" 0 0 2\r\nab\r\n"));
        const uint64_t key = std::stoull(out.substr(5));
        QVERIFY(key >= minimum && key <= maximum);
        keys.insert(key);
        const FeedResult r = session.feed("STORED\r\n");
        QCOMPARE(int(r.status), int(Status::Complete));
        QCOMPARE(r.info.operation, uint8_t(0));
    }
    QCOMPARE(uint64_t(keys.size()), maximum - minimum + 1);
    QCOMPARE(uint64_t(std::set<uint64_t>(keys.begin(), keys.end()).size()), uint64_t(keys.size()));
    QCOMPARE(*keys.begin(), minimum);
    QCOMPARE(*keys.rbegin(), maximum);

    // Requests beyond the range start it again, inside the range.
    auto session = protocol.newSession(connections - 1, 1);
    for (uint64_t i = 0; i < protocol.keyCount() + 3; ++i) {
        std::string out;
        session->appendRequest(out);
        const uint64_t key = std::stoull(out.substr(5));
        QVERIFY(key >= minimum && key <= maximum);
    }
}

void TestMemcacheProtocol::validation() {
    QVERIFY(!validateMemcacheSpec(MemcacheSpec{}));
    MemcacheSpec spec;
    spec.setRatio = 0;
    spec.getRatio = 0;
    QVERIFY(validateMemcacheSpec(spec));
    spec = {};
    spec.keyMinimum = 10;
    spec.keyMaximum = 9;
    QVERIFY(validateMemcacheSpec(spec));
    spec = {};
    spec.keyPrefix = "has space";
    QVERIFY(validateMemcacheSpec(spec));
    spec = {};
    spec.keyPrefix = std::string(240, 'p'); // + 8 digits: 248 bytes, fits
    QVERIFY(!validateMemcacheSpec(spec));
    spec.keyPrefix = std::string(243, 'p'); // 251
    QVERIFY(validateMemcacheSpec(spec));
    spec = {};
    spec.keyMedian = 20'000'000;
    QVERIFY(validateMemcacheSpec(spec));
    spec = {};
    spec.keyStddev = -1;
    QVERIFY(validateMemcacheSpec(spec));
}

void TestMemcacheProtocol::optionParsing() {
    uint32_t sets = 99;
    uint32_t gets = 99;
    QVERIFY(parseMemcacheRatio("1:10", sets, gets));
    QCOMPARE(sets, 1u);
    QCOMPARE(gets, 10u);
    QVERIFY(parseMemcacheRatio("0:1", sets, gets));
    QCOMPARE(sets, 0u);
    for (const char* bad : {"", "1", "1:", ":1", "a:b", "0:0", "1:10:2", "-1:2", "1 :2", "+1:2"})
        QVERIFY2(!parseMemcacheRatio(bad, sets, gets), bad);

    KeyPattern set = KeyPattern::Random;
    KeyPattern get = KeyPattern::Random;
    QVERIFY(parseMemcacheKeyPatterns("S:G", set, get));
    QCOMPARE(int(set), int(KeyPattern::Sequential));
    QCOMPARE(int(get), int(KeyPattern::Gaussian));
    QVERIFY(parseMemcacheKeyPatterns("R:R", set, get));
    QCOMPARE(int(set), int(KeyPattern::Random));
    for (const char* bad : {"", "S", "S:", "X:R", "SS:R", "s:r", "S:R:G"})
        QVERIFY2(!parseMemcacheKeyPatterns(bad, set, get), bad);
}

QTEST_GUILESS_MAIN(TestMemcacheProtocol)
#include "tst_memcache_protocol.moc"
