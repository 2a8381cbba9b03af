#include "engine/resp_reply_parser.h"

#include <QTest>
#include <string>
#include <vector>

using namespace loadscope::engine;

namespace {

using Status = FeedResult::Status;

// What a caller can observe about one reply.
struct Outcome {
    Status status = Status::NeedMore;
    size_t end = 0; // offset in the stream just after the reply; not compared for Malformed
    RespReplyType type = RespReplyType::None;
    uint64_t payload = 0;
    bool errorReply = false;
    std::string error;
    std::string code;

    bool operator==(const Outcome& o) const {
        return status == o.status && (status == Status::Malformed || end == o.end) &&
               type == o.type && payload == o.payload && errorReply == o.errorReply &&
               error == o.error && code == o.code;
    }
};

std::string describe(const std::vector<Outcome>& outcomes) {
    std::string s;
    for (const Outcome& o : outcomes)
        s += "{status " + std::to_string(int(o.status)) + " end " + std::to_string(o.end) +
             " type " + std::to_string(int(o.type)) + " payload " + std::to_string(o.payload) +
             " err " + std::to_string(o.errorReply) + " '" + o.error + "' " + o.code + "} ";
    return s;
}

// Feeds `stream` in pieces ending at `cuts`, `replies` replies expected, the way
// the engine does: after Complete the rest of the same read is fed again. A
// Malformed result ends the run; so does the end of the stream, with finishAtEof.
std::vector<Outcome> parse(size_t replies, std::string_view stream,
                           const std::vector<size_t>& cuts) {
    RespReplyParser parser;
    std::vector<Outcome> outcomes;
    size_t done = 0;
    if (replies > 0)
        parser.begin();
    auto record = [&](const FeedResult& r, size_t end) {
        Outcome o;
        o.status = r.status;
        o.end = end;
        if (r.status == Status::Complete) {
            o.type = parser.type();
            o.payload = r.info.bodyBytes;
            o.errorReply = r.info.errorReply;
            if (r.info.errorReply) {
                o.error = std::string(parser.error());
                o.code = std::string(parser.errorCode());
            }
        } else {
            o.error = std::string(parser.error());
        }
        outcomes.push_back(o);
    };
    size_t begin = 0;
    std::vector<size_t> ends = cuts;
    ends.push_back(stream.size());
    for (size_t end : ends) {
        std::string_view piece = stream.substr(begin, end - begin);
        size_t base = begin;
        begin = end;
        while (!piece.empty()) {
            const FeedResult r = parser.feed(piece);
            if (r.consumed > piece.size() ||
                (r.status == Status::NeedMore && r.consumed != piece.size())) {
                Outcome bad;
                bad.error = "feed contract broken";
                outcomes.push_back(bad);
                return outcomes;
            }
            if (r.status == Status::Malformed) {
                record(r, base + r.consumed);
                return outcomes;
            }
            if (r.status == Status::NeedMore)
                break;
            record(r, base + r.consumed);
            base += r.consumed;
            piece.remove_prefix(r.consumed);
            if (++done < replies)
                parser.begin();
        }
    }
    const FeedResult eof = parser.finishAtEof();
    if (eof.status != Status::NeedMore)
        record(eof, stream.size());
    return outcomes;
}

Outcome complete(size_t end, RespReplyType type, uint64_t payload = 0) {
    Outcome o;
    o.status = Status::Complete;
    o.end = end;
    o.type = type;
    o.payload = payload;
    return o;
}

Outcome errorReply(size_t end, std::string text, std::string code) {
    Outcome o = complete(end, RespReplyType::Error);
    o.errorReply = true;
    o.error = std::move(text);
    o.code = std::move(code);
    return o;
}

Outcome malformed(std::string message) {
    Outcome o;
    o.status = Status::Malformed;
    o.error = std::move(message);
    return o;
}

// Every split: whole, cut at each byte boundary in two, and byte by byte; each
// must give the same outcomes.
void checkEverySplit(size_t replies, const std::string& stream,
                     const std::vector<Outcome>& expected) {
    const auto whole = parse(replies, stream, {});
    QVERIFY2(whole == expected,
             ("whole: " + describe(whole) + "\nexpected: " + describe(expected)).c_str());
    for (size_t cut = 1; cut < stream.size(); ++cut) {
        const auto two = parse(replies, stream, {cut});
        QVERIFY2(two == expected, ("cut at " + std::to_string(cut) + ": " + describe(two)).c_str());
    }
    std::vector<size_t> every;
    for (size_t i = 1; i < stream.size(); ++i)
        every.push_back(i);
    const auto bytes = parse(replies, stream, every);
    QVERIFY2(bytes == expected, ("byte by byte: " + describe(bytes)).c_str());
}

} // namespace

class TestRespReplyParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validReplies_data();
    void validReplies();
    void errorClasses_data();
    void errorClasses();
    void malformedReplies_data();
    void malformedReplies();
    void pipelinedRepliesEndWhereTheySay();
    void payloadIsCountedNotScanned();
    void deepNestingIsRefusedNotRecursed();
    void endOfStream();
    void bytesWithNoReplyBegun();
    void longLinesAreBounded();
};

void TestRespReplyParser::validReplies_data() {
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<int>("type");
    QTest::addColumn<qulonglong>("payload");

    const auto row = [](const char* name, const std::string& stream, RespReplyType type,
                        uint64_t payload = 0) {
        QTest::newRow(name) << QByteArray::fromStdString(stream) << int(type)
                            << qulonglong(payload);
    };
    row("simple string", "+OK\r\n", RespReplyType::SimpleString);
    row("integer", ":1000\r\n", RespReplyType::Integer);
    row("negative integer", ":-12\r\n", RespReplyType::Integer);
    row("bulk", "$5\r\nhello\r\n", RespReplyType::Bulk, 5);
    row("empty bulk", "$0\r\n\r\n", RespReplyType::Bulk, 0);
    row("null bulk", "$-1\r\n", RespReplyType::NullBulk);
    row("bulk holding CRLF and markers", "$13\r\n+OK\r\n$-1\r\n*\r\n\r\n", RespReplyType::Bulk, 13);
    row("array", "*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n", RespReplyType::Array, 6);
    row("empty array", "*0\r\n", RespReplyType::Array);
    row("null array", "*-1\r\n", RespReplyType::NullArray);
    row("nested array", "*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n+x\r\n", RespReplyType::Array);
    row("array of nulls and errors", "*3\r\n$-1\r\n-ERR inner\r\n*-1\r\n", RespReplyType::Array);
    row("EXEC with an empty array inside", "*2\r\n*0\r\n:5\r\n", RespReplyType::Array);
    row("RESP3 null", "_\r\n", RespReplyType::Null);
    row("RESP3 boolean", "#t\r\n", RespReplyType::Boolean);
    row("RESP3 double", ",3.14\r\n", RespReplyType::Double);
    row("RESP3 infinity", ",-inf\r\n", RespReplyType::Double);
    row("RESP3 big number", "(3492890328409238509324850943850943825024385\r\n",
        RespReplyType::BigNumber);
    row("RESP3 verbatim", "=15\r\ntxt:Some string\r\n", RespReplyType::Bulk, 15);
    row("RESP3 map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", RespReplyType::Array);
    row("RESP3 set", "~2\r\n+a\r\n+b\r\n", RespReplyType::Array);
    row("RESP3 empty map", "%0\r\n", RespReplyType::Array);
    // HELLO 3's answer as Redis 7 sends it.
    row("HELLO 3 map",
        "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:"
        "3\r\n$2\r\nid\r\n:5\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
        "$7\r\nmodules\r\n*0\r\n",
        RespReplyType::Array, 6 + 5 + 7 + 6 + 5 + 2 + 4 + 10 + 4 + 6 + 7);
    row("attribute before a value", "|1\r\n+ttl\r\n:3600\r\n$2\r\nok\r\n", RespReplyType::Bulk, 2);
    row("attribute inside an array", "*2\r\n|1\r\n+a\r\n:1\r\n:7\r\n:8\r\n", RespReplyType::Array);
    row("push before the reply is skipped",
        ">3\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nkey\r\n$-1\r\n+OK\r\n", RespReplyType::SimpleString,
        13);
    row("empty push then a reply", ">0\r\n:1\r\n", RespReplyType::Integer);
}

void TestRespReplyParser::validReplies() {
    QFETCH(QByteArray, stream);
    QFETCH(int, type);
    QFETCH(qulonglong, payload);
    const std::string bytes = stream.toStdString();
    checkEverySplit(1, bytes, {complete(bytes.size(), RespReplyType(type), payload)});
}

void TestRespReplyParser::errorClasses_data() {
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");

    QTest::newRow("ERR") << QByteArray("-ERR unknown command 'FOO'\r\n")
                         << QStringLiteral("ERR unknown command 'FOO'") << QStringLiteral("ERR");
    QTest::newRow("WRONGTYPE")
        << QByteArray("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
        << QStringLiteral("WRONGTYPE Operation against a key holding the wrong kind of value")
        << QStringLiteral("WRONGTYPE");
    QTest::newRow("MOVED") << QByteArray("-MOVED 3999 127.0.0.1:6381\r\n")
                           << QStringLiteral("MOVED 3999 127.0.0.1:6381")
                           << QStringLiteral("MOVED");
    QTest::newRow("code alone") << QByteArray("-NOAUTH\r\n") << QStringLiteral("NOAUTH")
                                << QStringLiteral("NOAUTH");
    QTest::newRow("lower-case first word")
        << QByteArray("-my script failed\r\n") << QStringLiteral("my script failed")
        << QStringLiteral("OTHER");
    QTest::newRow("empty error") << QByteArray("-\r\n") << QString() << QStringLiteral("OTHER");
    QTest::newRow("RESP3 blob error")
        << QByteArray("!21\r\nSYNTAX invalid syntax\r\n") << QStringLiteral("SYNTAX invalid syntax")
        << QStringLiteral("SYNTAX");
}

void TestRespReplyParser::errorClasses() {
    QFETCH(QByteArray, stream);
    QFETCH(QString, text);
    QFETCH(QString, code);
    const std::string bytes = stream.toStdString();
    checkEverySplit(1, bytes, {errorReply(bytes.size(), text.toStdString(), code.toStdString())});
}

void TestRespReplyParser::malformedReplies_data() {
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QString>("message");

    const auto row = [](const char* name, const char* stream, const char* message) {
        QTest::newRow(name) << QByteArray(stream) << QString::fromLatin1(message);
    };
    row("unknown type", "?what\r\n", "unexpected reply line \"?what\"");
    row("LF without CR", "+OK\n", "reply line not ended by CRLF: \"+OK\"");
    row("empty line", "\r\n", "empty reply line");
    row("bulk length not a number", "$x\r\n", "bulk length is not one: \"$x\"");
    row("bulk length with plus", "$+3\r\nabc\r\n", "bulk length is not one: \"$+3\"");
    row("bulk length below -1", "$-2\r\n", "bulk length is not one: \"$-2\"");
    row("bulk without CRLF", "$3\r\nabcX\r\n",
        "bulk string not followed by CRLF where its length said");
    row("integer not a number", ":12a\r\n", "integer reply is not a number: \":12a\"");
    row("aggregate count not a number", "*two\r\n", "aggregate count is not a number: \"*two\"");
    row("null map", "%-1\r\n", "aggregate of -1 elements");
    row("streamed string", "$?\r\n", "streamed strings are not supported");
    row("streamed array", "*?\r\n", "streamed aggregates are not supported");
    row("bad boolean", "#x\r\n", "boolean reply is neither t nor f: \"#x\"");
    row("null with text", "_x\r\n", "null reply with text: \"_x\"");
    row("bad big number", "(12a\r\n", "big number reply is not a number: \"(12a\"");
}

void TestRespReplyParser::malformedReplies() {
    QFETCH(QByteArray, stream);
    QFETCH(QString, message);
    checkEverySplit(1, stream.toStdString(), {malformed(message.toStdString())});
}

void TestRespReplyParser::pipelinedRepliesEndWhereTheySay() {
    const std::string a = "+OK\r\n";
    const std::string b = "$3\r\nabc\r\n";
    const std::string c = "-ERR no\r\n";
    const std::string d = "$-1\r\n";
    const std::string e = "*2\r\n:1\r\n:2\r\n";
    checkEverySplit(
        5, a + b + c + d + e,
        {complete(a.size(), RespReplyType::SimpleString),
         complete(a.size() + b.size(), RespReplyType::Bulk, 3),
         errorReply(a.size() + b.size() + c.size(), "ERR no", "ERR"),
         complete(a.size() + b.size() + c.size() + d.size(), RespReplyType::NullBulk),
         complete(a.size() + b.size() + c.size() + d.size() + e.size(), RespReplyType::Array)});
}

void TestRespReplyParser::payloadIsCountedNotScanned() {
    // A large bulk full of protocol-looking bytes is one reply of exactly its length.
    std::string data;
    for (size_t i = 0; data.size() < 100'000; ++i)
        data += i % 2 ? "-ERR x\r\n" : "*3\r\n$-1\r\n";
    data.resize(100'000);
    const std::string stream = "$100000\r\n" + data + "\r\n+OK\r\n";
    const auto outcomes = parse(2, stream, {7, 5000, 99'000});
    QCOMPARE(outcomes.size(), size_t(2));
    QVERIFY(outcomes[0] == complete(stream.size() - 5, RespReplyType::Bulk, 100'000));
    QVERIFY(outcomes[1] == complete(stream.size(), RespReplyType::SimpleString));
}

void TestRespReplyParser::deepNestingIsRefusedNotRecursed() {
    std::string ok;
    for (size_t i = 0; i < RespReplyParser::kMaxDepth; ++i)
        ok += "*1\r\n";
    ok += ":1\r\n";
    QVERIFY(parse(1, ok, {}) == std::vector<Outcome>{complete(ok.size(), RespReplyType::Array)});
    const std::string deep = "*1\r\n" + ok;
    const auto outcomes = parse(1, deep, {});
    QCOMPARE(outcomes.size(), size_t(1));
    QVERIFY(outcomes[0] == malformed("reply nested deeper than 64 levels"));
}

void TestRespReplyParser::endOfStream() {
    QVERIFY(parse(1, "", {}) ==
            std::vector<Outcome>{malformed("connection closed before the reply")});
    const auto cut = parse(1, "*2\r\n:1\r\n", {});
    QCOMPARE(cut.size(), size_t(1));
    QVERIFY(cut[0] == malformed("connection closed in the middle of a reply (8 bytes received)"));
    QVERIFY(parse(0, "", {}).empty());
}

void TestRespReplyParser::bytesWithNoReplyBegun() {
    RespReplyParser parser;
    const FeedResult r = parser.feed("+OK\r\n");
    QCOMPARE(r.status, Status::Malformed);
    QCOMPARE(std::string(parser.error()), std::string("reply bytes with no command outstanding"));
    // After a complete reply, nothing more is expected until begin().
    parser.begin();
    QCOMPARE(parser.feed("+OK\r\n").status, Status::Complete);
    QCOMPARE(parser.feed(":1\r\n").status, Status::Malformed);
}

void TestRespReplyParser::longLinesAreBounded() {
    const std::string longest = "+" + std::string(RespReplyParser::kMaxLineBytes - 1, 'a') + "\r\n";
    QVERIFY(parse(1, longest, {100}) ==
            std::vector<Outcome>{complete(longest.size(), RespReplyType::SimpleString)});
    const std::string tooLong = "+" + std::string(RespReplyParser::kMaxLineBytes + 1, 'a') + "\r\n";
    const auto outcomes = parse(1, tooLong, {100});
    QCOMPARE(outcomes.size(), size_t(1));
    QVERIFY(outcomes[0] == malformed("reply line longer than 65536 bytes"));
    // An error reply's text is kept only up to its bound.
    const std::string error = "-ERR " + std::string(2000, 'x') + "\r\n";
    const auto kept = parse(1, error, {});
    QCOMPARE(kept.size(), size_t(1));
    QCOMPARE(kept[0].error.size(), RespReplyParser::kMaxErrorBytes);
    QCOMPARE(kept[0].code, std::string("ERR"));
}

QTEST_GUILESS_MAIN(TestRespReplyParser)
#include "tst_resp_reply_parser.moc"
