#include "engine/redis_protocol.h"

#include <QTest>
#include <set>
#include <string>
#include <vector>

using namespace loadscope::engine;

namespace {

using Status = FeedResult::Status;
using Kind = RedisCommandArgument::Kind;

RedisSpec sequentialSpec(uint64_t minimum, uint64_t maximum) {
    RedisSpec spec;
    spec.workload.setRatio = 1;
    spec.workload.getRatio = 1;
    spec.workload.setKeyPattern = KeyPattern::Sequential;
    spec.workload.getKeyPattern = KeyPattern::Sequential;
    spec.workload.keyMinimum = minimum;
    spec.workload.keyMaximum = maximum;
    spec.workload.keyPrefix = "k:";
    spec.workload.valueSize = 5;
    spec.workload.connections = 1;
    return spec;
}

RedisCommandSpec command(std::string_view text, uint32_t ratio = 1,
                         KeyPattern pattern = KeyPattern::Sequential) {
    RedisCommandSpec spec;
    const auto problem = parseRedisCommand(text, spec.arguments);
    if (problem)
        qFatal("%s", problem->c_str());
    spec.ratio = ratio;
    spec.keyPattern = pattern;
    return spec;
}

std::string requests(const ProtocolSession& constSession, int count) {
    auto& session = const_cast<ProtocolSession&>(constSession);
    std::string out;
    for (int i = 0; i < count; ++i)
        session.appendRequest(out);
    return out;
}

} // namespace

class TestRedisProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void setAndGetBytes();
    void getRepliesAreHitsOrMisses();
    void errorReplyKeepsItsClass();
    void helloOpensEveryConnection();
    void refusedHelloIsMalformed();
    void commandSplitting_data();
    void commandSplitting();
    void commandRefusals_data();
    void commandRefusals();
    void arbitraryCommandsCycleByRatio();
    void commandOperationsByName();
    void preloadCoversRangeOnce();
    void validation();
};

void TestRedisProtocol::setAndGetBytes() {
    RedisProtocol protocol(sequentialSpec(7, 8));
    QCOMPARE(protocol.operationNames(), (std::vector<std::string>{"set", "get"}));
    auto session = protocol.newSession(0, 1);
    QCOMPARE(requests(*session, 4), std::string("*3\r\n$3\r\nSET\r\n$3\r\nk:7\r\n$5\r\nabcde\r\n"
                                                "*2\r\n$3\r\nGET\r\n$3\r\nk:7\r\n"
                                                "*3\r\n$3\r\nSET\r\n$3\r\nk:8\r\n$5\r\nabcde\r\n"
                                                "*2\r\n$3\r\nGET\r\n$3\r\nk:8\r\n"));
    // Keys of several lengths: each bulk header says its own.
    RedisSpec wide = sequentialSpec(9, 10);
    wide.workload.setRatio = 0;
    RedisProtocol gets(wide);
    auto getSession = gets.newSession(0, 1);
    QCOMPARE(requests(*getSession, 2),
             std::string("*2\r\n$3\r\nGET\r\n$3\r\nk:9\r\n*2\r\n$3\r\nGET\r\n$4\r\nk:10\r\n"));
}

void TestRedisProtocol::getRepliesAreHitsOrMisses() {
    RedisProtocol protocol(sequentialSpec(1, 3));
    auto session = protocol.newSession(0, 1);
    requests(*session, 4); // set, get, set, get: pipelined
    const std::string replies = "+OK\r\n$5\r\nabcde\r\n+OK\r\n$-1\r\n";
    std::string_view rest = replies;
    std::vector<ResponseInfo> infos;
    while (!rest.empty()) {
        const FeedResult r = session->feed(rest);
        QCOMPARE(r.status, Status::Complete);
        infos.push_back(r.info);
        rest.remove_prefix(r.consumed);
    }
    QCOMPARE(infos.size(), size_t(4));
    QCOMPARE(int(infos[0].operation), 0);
    QCOMPARE(int(infos[0].hit), -1);
    QCOMPARE(int(infos[1].operation), 1);
    QCOMPARE(int(infos[1].hit), 1);
    QCOMPARE(infos[1].bodyBytes, uint64_t(5));
    QCOMPARE(int(infos[3].hit), 0);
    // RESP3's null is a miss too.
    requests(*session, 2);
    QCOMPARE(session->feed("+OK\r\n").status, Status::Complete);
    const FeedResult null = session->feed("_\r\n");
    QCOMPARE(null.status, Status::Complete);
    QCOMPARE(int(null.info.hit), 0);
}

void TestRedisProtocol::errorReplyKeepsItsClass() {
    RedisProtocol protocol(sequentialSpec(1, 3));
    auto session = protocol.newSession(0, 1);
    requests(*session, 2);
    const FeedResult r =
        session->feed("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    QCOMPARE(r.status, Status::Complete);
    QVERIFY(r.info.errorReply);
    QCOMPARE(int(r.info.hit), -1);
    QCOMPARE(std::string(session->errorReplyCode()), std::string("OOM"));
    QCOMPARE(std::string(session->lastError()),
             std::string("OOM command not allowed when used memory > 'maxmemory'."));
    const FeedResult get = session->feed("-WRONGTYPE Operation against a key\r\n");
    QVERIFY(get.info.errorReply);
    QCOMPARE(int(get.info.hit), -1); // an error is neither a hit nor a miss
    QCOMPARE(std::string(session->errorReplyCode()), std::string("WRONGTYPE"));
}

void TestRedisProtocol::helloOpensEveryConnection() {
    RedisSpec spec = sequentialSpec(1, 1);
    spec.workload.setRatio = 0;
    spec.handshake = RedisHandshake::Resp3;
    RedisProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    const std::string hello = "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n";
    const std::string get = "*2\r\n$3\r\nGET\r\n$3\r\nk:1\r\n";
    QCOMPARE(requests(*session, 2), hello + get + get);
    // HELLO's map is consumed, not reported: the first Complete is the GET's.
    const std::string helloReply = "%1\r\n$5\r\nproto\r\n:3\r\n";
    const std::string first = helloReply + "_\r\n$1\r\nx\r\n";
    const FeedResult r = session->feed(first);
    QCOMPARE(r.status, Status::Complete);
    QCOMPARE(r.consumed, helloReply.size() + 3);
    QCOMPARE(int(r.info.hit), 0);
    const FeedResult second = session->feed(std::string_view(first).substr(r.consumed));
    QCOMPARE(second.status, Status::Complete);
    QCOMPARE(int(second.info.hit), 1);
    // HELLO's reply split anywhere still counts for nothing.
    session->resetConnection();
    QCOMPARE(requests(*session, 1), hello + get);
    for (char byte : helloReply) {
        const FeedResult piece = session->feed(std::string_view(&byte, 1));
        QCOMPARE(piece.status, Status::NeedMore);
        QCOMPARE(piece.consumed, size_t(1));
    }
    QCOMPARE(session->feed("$-1\r\n").status, Status::Complete);

    RedisSpec resp2 = spec;
    resp2.handshake = RedisHandshake::Resp2;
    RedisProtocol protocol2(resp2);
    QVERIFY(requests(*protocol2.newSession(0, 1), 1)
                .starts_with("*2\r\n$5\r\nHELLO\r\n$1\r\n2\r\n*2\r\n$3\r\nGET"));
    RedisSpec plain = spec;
    plain.handshake = RedisHandshake::None;
    RedisProtocol protocol3(plain);
    QCOMPARE(requests(*protocol3.newSession(0, 1), 1), get);
}

void TestRedisProtocol::refusedHelloIsMalformed() {
    RedisSpec spec = sequentialSpec(1, 1);
    spec.handshake = RedisHandshake::Resp3;
    RedisProtocol protocol(spec);
    auto session = protocol.newSession(0, 1);
    requests(*session, 1);
    const FeedResult r = session->feed("-ERR unknown command 'HELLO'\r\n");
    QCOMPARE(r.status, Status::Malformed);
    QCOMPARE(std::string(session->lastError()),
             std::string("the server refused HELLO 3: ERR unknown command 'HELLO'"));
    session->resetConnection();
    QCOMPARE(std::string(session->lastError()), std::string("ERR unknown command 'HELLO'"));
}

void TestRedisProtocol::commandSplitting_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("words"); // "k:BEFORE|AFTER" for keys, "d:" for data

    QTest::newRow("plain") << QStringLiteral("set __key__ __data__")
                           << QStringList{QStringLiteral("set"), QStringLiteral("k:|"),
                                          QStringLiteral("d:")};
    QTest::newRow("blanks around") << QStringLiteral("  GET\t __key__  ")
                                   << QStringList{QStringLiteral("GET"), QStringLiteral("k:|")};
    QTest::newRow("key with affixes")
        << QStringLiteral("HSET user:__key__:profile name x")
        << QStringList{QStringLiteral("HSET"), QStringLiteral("k:user:|:profile"),
                       QStringLiteral("name"), QStringLiteral("x")};
    QTest::newRow("double quotes")
        << QStringLiteral("SET \"a b\" \"tab\\there\\x41\\\"\"")
        << QStringList{QStringLiteral("SET"), QStringLiteral("a b"),
                       QStringLiteral("tab\there") + QStringLiteral("A\"")};
    QTest::newRow("single quotes")
        << QStringLiteral("ECHO 'it\\'s \"x\"'")
        << QStringList{QStringLiteral("ECHO"), QStringLiteral("it's \"x\"")};
    QTest::newRow("empty quoted word")
        << QStringLiteral("SET k \"\"")
        << QStringList{QStringLiteral("SET"), QStringLiteral("k"), QString()};
}

void TestRedisProtocol::commandSplitting() {
    QFETCH(QString, text);
    QFETCH(QStringList, words);
    std::vector<RedisCommandArgument> arguments;
    const auto problem = parseRedisCommand(text.toStdString(), arguments);
    QVERIFY2(!problem, problem ? problem->c_str() : "");
    QStringList got;
    for (const auto& a : arguments) {
        switch (a.kind) {
        case Kind::Text:
            got << QString::fromStdString(a.text);
            break;
        case Kind::Key:
            got << QStringLiteral("k:") + QString::fromStdString(a.text) + QLatin1Char('|') +
                       QString::fromStdString(a.suffix);
            break;
        case Kind::Data:
            got << QStringLiteral("d:");
            break;
        }
    }
    QCOMPARE(got, words);
}

void TestRedisProtocol::commandRefusals_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::newRow("empty") << QStringLiteral("   ") << QStringLiteral("the command is empty");
    QTest::newRow("open double quote")
        << QStringLiteral("SET \"a b") << QStringLiteral("unbalanced quotes in the command");
    QTest::newRow("open single quote")
        << QStringLiteral("SET 'a") << QStringLiteral("unbalanced quotes in the command");
    QTest::newRow("quote not ending its word")
        << QStringLiteral("SET \"a\"b") << QStringLiteral("unbalanced quotes in the command");
    QTest::newRow("data inside a word")
        << QStringLiteral("SET k x__data__")
        << QStringLiteral("__data__ must be a whole word of the command");
    QTest::newRow("placeholder as the name")
        << QStringLiteral("__key__ x")
        << QStringLiteral("the command's first word must be its name");
}

void TestRedisProtocol::commandRefusals() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    std::vector<RedisCommandArgument> arguments;
    const auto got = parseRedisCommand(text.toStdString(), arguments);
    QVERIFY(got);
    QCOMPARE(QString::fromStdString(*got), problem);
}

void TestRedisProtocol::arbitraryCommandsCycleByRatio() {
    RedisSpec spec = sequentialSpec(1, 9);
    spec.workload.valueSize = 3;
    spec.commands = {command("SET pre__key__post __data__", 2), command("PING", 1)};
    RedisProtocol protocol(spec);
    QCOMPARE(protocol.operationNames(), (std::vector<std::string>{"set", "ping"}));
    auto session = protocol.newSession(0, 1);
    const std::string set1 = "*3\r\n$3\r\nSET\r\n$10\r\nprek:1post\r\n$3\r\nabc\r\n";
    const std::string set2 = "*3\r\n$3\r\nSET\r\n$10\r\nprek:2post\r\n$3\r\nabc\r\n";
    const std::string ping = "*1\r\n$4\r\nPING\r\n";
    const std::string set3 = "*3\r\n$3\r\nSET\r\n$10\r\nprek:3post\r\n$3\r\nabc\r\n";
    QCOMPARE(requests(*session, 4), set1 + set2 + ping + set3);
    // The replies come back under each command's operation, with no hits.
    const std::string replies = "+OK\r\n+OK\r\n+PONG\r\n+OK\r\n";
    std::string_view rest = replies;
    std::vector<int> operations;
    while (!rest.empty()) {
        const FeedResult r = session->feed(rest);
        QCOMPARE(r.status, Status::Complete);
        QCOMPARE(int(r.info.hit), -1);
        operations.push_back(r.info.operation);
        rest.remove_prefix(r.consumed);
    }
    QCOMPARE(operations, (std::vector<int>{0, 0, 1, 0}));
}

void TestRedisProtocol::commandOperationsByName() {
    RedisSpec spec = sequentialSpec(1, 9);
    spec.commands = {command("set __key__ a"), command("GET __key__"), command("SET __key__ b"),
                     command("MSET __key__ x __key__ y")};
    RedisProtocol protocol(spec);
    // Commands of one name share its operation, as memtier's default breakdown does.
    QCOMPARE(protocol.operationNames(), (std::vector<std::string>{"set", "get", "mset"}));
    auto session = protocol.newSession(0, 1);
    const std::string all = requests(*session, 4);
    // Each __key__ draws the next key of its command's generator.
    QVERIFY(all.ends_with("*5\r\n$4\r\nMSET\r\n$3\r\nk:1\r\n$1\r\nx\r\n$3\r\nk:2\r\n$1\r\ny\r\n"));
}

void TestRedisProtocol::preloadCoversRangeOnce() {
    RedisSpec spec = sequentialSpec(100, 149);
    spec.commands = {command("PING")}; // the preload sets keys whatever the run sends
    RedisPreloadProtocol protocol(spec);
    QCOMPARE(protocol.keyCount(), uint64_t(50));
    QCOMPARE(protocol.operationNames(), (std::vector<std::string>{"set"}));
    std::vector<std::unique_ptr<ProtocolSession>> sessions;
    for (uint32_t c = 0; c < 3; ++c)
        sessions.push_back(protocol.newSession(c, 1));
    std::multiset<std::string> keys;
    for (uint64_t i = 0; i < protocol.keyCount(); ++i) {
        const std::string request = requests(*sessions[i % 3], 1);
        QVERIFY(request.starts_with("*3\r\n$3\r\nSET\r\n"));
        const size_t keyStart = request.find("k:");
        keys.insert(request.substr(keyStart, request.find('\r', keyStart) - keyStart));
    }
    QCOMPARE(keys.size(), size_t(50));
    QCOMPARE(std::set<std::string>(keys.begin(), keys.end()).size(), size_t(50));
    QVERIFY(keys.count("k:100") == 1 && keys.count("k:149") == 1);
}

void TestRedisProtocol::validation() {
    RedisSpec spec;
    QVERIFY(!validateRedisSpec(spec));
    spec.workload.setRatio = 0;
    spec.workload.getRatio = 0;
    QVERIFY(validateRedisSpec(spec));
    spec.commands = {command("PING")};
    QVERIFY(!validateRedisSpec(spec)); // commands replace the ratio
    spec.commands[0].ratio = 0;
    QCOMPARE(*validateRedisSpec(spec), std::string("the ratio of command ping must be at least 1"));
    spec = RedisSpec{};
    spec.workload.valueSize = 0;
    QVERIFY(validateRedisSpec(spec));
    // Keys may hold blanks in Redis (binary-safe), unlike memcached's.
    spec = RedisSpec{};
    spec.workload.keyPrefix = "a b ";
    QVERIFY(!validateRedisSpec(spec));
}

QTEST_GUILESS_MAIN(TestRedisProtocol)
#include "tst_redis_protocol.moc"
