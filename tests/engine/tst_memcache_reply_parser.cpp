#include "engine/memcache_reply_parser.h"
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

// What a caller can observe about one reply.
struct Outcome {
    Status status = Status::NeedMore;
    size_t end = 0; // offset in the stream just after the reply; not compared for Malformed
    MemcacheReplyKind kind = MemcacheReplyKind::None;
    uint32_t values = 0;
    uint64_t bodyBytes = 0;
    int hit = -1;
    bool errorReply = false;
    std::string error;

    bool operator==(const Outcome& o) const {
        return status == o.status && (status == Status::Malformed || end == o.end) &&
               kind == o.kind && values == o.values && bodyBytes == o.bodyBytes && hit == o.hit &&
               errorReply == o.errorReply && error == o.error;
    }
};

std::string describe(const std::vector<Outcome>& outcomes) {
    std::string s;
    for (const Outcome& o : outcomes) {
        s += "{status " + std::to_string(int(o.status)) + " end " + std::to_string(o.end) +
             " kind " + std::to_string(int(o.kind)) + " values " + std::to_string(o.values) +
             " bytes " + std::to_string(o.bodyBytes) + " hit " + std::to_string(o.hit) + " err " +
             std::to_string(o.errorReply) + " '" + o.error + "'} ";
    }
    return s;
}

MemcacheCommandKind kindOf(char c) {
    return c == 's' ? MemcacheCommandKind::Storage : MemcacheCommandKind::Retrieval;
}

// Feeds `stream` to a parser in pieces ending at `cuts` (ascending offsets), one
// reply per letter of `commands` ('g' get, 's' set), the way the engine does:
// after Complete the rest of the same read is fed again. A Malformed result
// ends the run; so does the end of the stream, with finishAtEof.
std::vector<Outcome> parse(const std::string& commands, std::string_view stream,
                           const std::vector<size_t>& cuts) {
    MemcacheReplyParser parser;
    std::vector<Outcome> outcomes;
    size_t next = 0;
    if (!commands.empty())
        parser.begin(kindOf(commands[next]));

    auto record = [&](const FeedResult& r, size_t end) {
        Outcome o;
        o.status = r.status;
        o.end = end;
        if (r.status == Status::Complete) {
            o.kind = parser.kind();
            o.values = parser.values();
            o.bodyBytes = r.info.bodyBytes;
            o.hit = r.info.hit;
            o.errorReply = r.info.errorReply;
            if (r.info.errorReply)
                o.error = std::string(parser.error());
        } else {
            o.error = std::string(parser.error());
        }
        outcomes.push_back(o);
    };

    size_t begin = 0;
    std::vector<size_t> ends = cuts;
    ends.push_back(stream.size());
    for (size_t end : ends) {
        if (end < begin)
            continue;
        std::string_view piece = stream.substr(begin, end - begin);
        size_t base = begin;
        begin = end;
        while (!piece.empty()) {
            const FeedResult r = parser.feed(piece);
            if (r.consumed > piece.size()) {
                Outcome bad;
                bad.error = "consumed more than given";
                outcomes.push_back(bad);
                return outcomes;
            }
            if (r.status == Status::Malformed) {
                record(r, base + r.consumed);
                return outcomes;
            }
            if (r.status == Status::NeedMore) {
                if (r.consumed != piece.size()) {
                    Outcome bad;
                    bad.error = "NeedMore without consuming everything";
                    outcomes.push_back(bad);
                    return outcomes;
                }
                break;
            }
            record(r, base + r.consumed);
            base += r.consumed;
            piece.remove_prefix(r.consumed);
            if (++next < commands.size())
                parser.begin(kindOf(commands[next]));
        }
    }
    const FeedResult eof = parser.finishAtEof();
    if (eof.status != Status::NeedMore)
        record(eof, stream.size());
    return outcomes;
}

std::vector<size_t> everyByte(size_t size) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < size; ++i)
        cuts.push_back(i);
    return cuts;
}

// Expected reply, as a test table row spells it.
struct Reply {
    MemcacheReplyKind kind;
    uint32_t values = 0;
    uint64_t valueBytes = 0;
    std::string message = {};
};
using Replies = std::vector<Reply>;

} // namespace

Q_DECLARE_METATYPE(Replies)
Q_DECLARE_METATYPE(std::string)

class TestMemcacheReplyParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validReplies_data();
    void validReplies();
    void malformedReplies_data();
    void malformedReplies();
    void endOfStream();
};

void TestMemcacheReplyParser::validReplies_data() {
    QTest::addColumn<std::string>("commands");
    QTest::addColumn<std::string>("stream");
    QTest::addColumn<Replies>("expected");

    using K = MemcacheReplyKind;
    const std::string value32 = trickyData(32);
    const std::string large = trickyData(70'000);

    QTest::newRow("miss") << std::string("g") << std::string("END\r\n") << Replies{{K::End}};
    QTest::newRow("hit") << std::string("g") << valueBlock("memtier-17", "hello") + "END\r\n"
                         << Replies{{K::End, 1, 5}};
    QTest::newRow("hit with cas") << std::string("g") << valueBlock("k", "abc", "12345") + "END\r\n"
                                  << Replies{{K::End, 1, 3}};
    QTest::newRow("hit with flags")
        << std::string("g") << std::string("VALUE k 4294967295 2\r\nab\r\nEND\r\n")
        << Replies{{K::End, 1, 2}};
    QTest::newRow("empty value") << std::string("g") << valueBlock("k", "") + "END\r\n"
                                 << Replies{{K::End, 1, 0}};
    QTest::newRow("value that looks like replies")
        << std::string("g") << valueBlock("k", value32) + "END\r\n"
        << Replies{{K::End, 1, 32}};
    QTest::newRow("large value") << std::string("g") << valueBlock("big", large) + "END\r\n"
                                 << Replies{{K::End, 1, large.size()}};
    QTest::newRow("several values")
        << std::string("g") << valueBlock("a", "x") + valueBlock("b", "yz") + "END\r\n"
        << Replies{{K::End, 2, 3}};
    QTest::newRow("stored") << std::string("s") << std::string("STORED\r\n")
                            << Replies{{K::Stored}};
    QTest::newRow("not stored") << std::string("s") << std::string("NOT_STORED\r\n")
                                << Replies{{K::NotStored}};
    QTest::newRow("exists") << std::string("s") << std::string("EXISTS\r\n")
                            << Replies{{K::Exists}};
    QTest::newRow("not found") << std::string("s") << std::string("NOT_FOUND\r\n")
                               << Replies{{K::NotFound}};
    QTest::newRow("error") << std::string("g") << std::string("ERROR\r\n")
                           << Replies{{K::Error, 0, 0, "ERROR"}};
    QTest::newRow("error with text") << std::string("s") << std::string("ERROR unknown command\r\n")
                                     << Replies{{K::Error, 0, 0, "ERROR unknown command"}};
    QTest::newRow("client error") << std::string("s")
                                  << std::string("CLIENT_ERROR bad data chunk\r\n")
                                  << Replies{{K::ClientError, 0, 0, "CLIENT_ERROR bad data chunk"}};
    QTest::newRow("server error out of memory")
        << std::string("s") << std::string("SERVER_ERROR out of memory storing object\r\n")
        << Replies{{K::ServerError, 0, 0, "SERVER_ERROR out of memory storing object"}};
    QTest::newRow("server error after a value")
        << std::string("g") << valueBlock("k", "v") + "SERVER_ERROR busy\r\n"
        << Replies{{K::ServerError, 1, 1, "SERVER_ERROR busy"}};
    QTest::newRow("pipelined set get get")
        << std::string("sgg") << "STORED\r\n" + valueBlock("memtier-3", value32) + "END\r\nEND\r\n"
        << Replies{{K::Stored}, {K::End, 1, 32}, {K::End}};
    QTest::newRow("pipelined with errors")
        << std::string("sgsg")
        << std::string("SERVER_ERROR out of memory storing object\r\nEND\r\nSTORED\r\n") +
               valueBlock("k", "") + "END\r\n"
        << Replies{{K::ServerError, 0, 0, "SERVER_ERROR out of memory storing object"},
                   {K::End},
                   {K::Stored},
                   {K::End, 1, 0}};
    QTest::newRow("pipelined large and small")
        << std::string("gsg") << valueBlock("big", large) + "END\r\nNOT_STORED\r\nEND\r\n"
        << Replies{{K::End, 1, large.size()}, {K::NotStored}, {K::End}};
    std::string longest = "VALUE " + std::string(250, 'k') + " 4294967295 1 18446744073709551615";
    QTest::newRow("longest VALUE line") << std::string("g") << longest + "\r\nx\r\nEND\r\n"
                                        << Replies{{K::End, 1, 1}};
    const std::string message(MemcacheReplyParser::kMaxLineBytes - 13, 'm');
    QTest::newRow("error line of the maximum length")
        << std::string("s") << "SERVER_ERROR " + message + "\r\n"
        << Replies{{K::ServerError, 0, 0, "SERVER_ERROR " + message}};
}

void TestMemcacheReplyParser::validReplies() {
    QFETCH(std::string, commands);
    QFETCH(std::string, stream);
    QFETCH(Replies, expected);

    const std::vector<Outcome> whole = parse(commands, stream, {});
    QCOMPARE(whole.size(), expected.size());
    size_t ends = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        const Outcome& o = whole[i];
        QCOMPARE(int(o.status), int(Status::Complete));
        QCOMPARE(int(o.kind), int(expected[i].kind));
        QCOMPARE(o.values, expected[i].values);
        QCOMPARE(o.bodyBytes, expected[i].valueBytes);
        const bool isError = expected[i].kind == MemcacheReplyKind::Error ||
                             expected[i].kind == MemcacheReplyKind::ClientError ||
                             expected[i].kind == MemcacheReplyKind::ServerError;
        QCOMPARE(o.errorReply, isError);
        QCOMPARE(o.error, expected[i].message);
        const int hit = expected[i].kind == MemcacheReplyKind::End ? (o.values > 0 ? 1 : 0) : -1;
        QCOMPARE(o.hit, hit);
        QVERIFY(o.end > ends);
        ends = o.end;
    }
    QCOMPARE(ends, stream.size());

    for (size_t cut = 1; cut < stream.size(); ++cut) {
        const std::vector<Outcome> split = parse(commands, stream, {cut});
        if (!(split == whole))
            QFAIL(qPrintable(QStringLiteral("split at %1 differs: %2")
                                 .arg(cut)
                                 .arg(QString::fromStdString(describe(split)))));
    }
    // Two cuts at a time on the small replies, where it stays cheap.
    if (stream.size() <= 200) {
        for (size_t a = 1; a < stream.size(); ++a)
            for (size_t b = a + 1; b < stream.size(); ++b)
                QVERIFY2(parse(commands, stream, {a, b}) == whole,
                         qPrintable(QStringLiteral("cuts %1 %2").arg(a).arg(b)));
    }
    const std::vector<Outcome> bytes = parse(commands, stream, everyByte(stream.size()));
    QVERIFY2(bytes == whole, describe(bytes).c_str());
}

void TestMemcacheReplyParser::malformedReplies_data() {
    QTest::addColumn<std::string>("commands");
    QTest::addColumn<std::string>("stream");
    QTest::addColumn<std::string>("reason");

    auto row = [](const char* name, const char* commands, std::string stream, const char* reason) {
        QTest::newRow(name) << std::string(commands) << std::move(stream) << std::string(reason);
    };
    row("LF without CR", "g", "END\n", "not ended by CRLF");
    row("lone LF", "g", "\n", "not ended by CRLF");
    row("empty line", "g", "\r\n", "unexpected reply line");
    row("unknown word", "g", "ENDX\r\n", "unexpected reply line");
    row("lower case", "s", "stored\r\n", "unexpected reply line");
    row("trailing blank", "s", "STORED \r\n", "unexpected reply line");
    row("CR inside line", "s", "STORED\r\r\n", "unexpected reply line");
    row("glued error word", "s", "CLIENT_ERRORoops\r\n", "unexpected reply line");
    row("binary garbage", "g", std::string("\x00\x01\xff\x7f\r\n", 6), "unexpected reply line");
    row("STORED answering a get", "g", "STORED\r\n", "in reply to a get");
    row("END answering a set", "s", "END\r\n", "in reply to a set");
    row("VALUE answering a set", "s", "VALUE k 0 1\r\nx\r\nEND\r\n", "in reply to a set");
    row("value longer than announced", "g", "VALUE k 0 3\r\nabcdef\r\nEND\r\n",
        "not followed by CRLF after the 3 bytes");
    row("value one byte longer", "g", "VALUE k 0 3\r\nabcd\r\nEND\r\n",
        "not followed by CRLF after the 3 bytes");
    row("value shorter than announced", "g", "VALUE k 0 5\r\nabc\r\nEND\r\n",
        "not followed by CRLF after the 5 bytes");
    row("value CR without LF", "g", "VALUE k 0 1\r\nx\rXEND\r\n", "not followed by CRLF");
    row("second value too long", "g", "VALUE a 0 1\r\nx\r\nVALUE b 0 2\r\nxyz\r\nEND\r\n",
        "after the 2 bytes");
    row("length not a number", "g", "VALUE k 0 abc\r\n", "malformed VALUE line");
    row("negative length", "g", "VALUE k 0 -1\r\n", "malformed VALUE line");
    row("signed length", "g", "VALUE k 0 +1\r\n", "malformed VALUE line");
    row("length overflow", "g", "VALUE k 0 99999999999999999999999\r\n", "malformed VALUE line");
    row("length above limit", "g", "VALUE k 0 2000000000\r\n", "above the limit");
    row("flags overflow", "g", "VALUE k 4294967296 1\r\nx\r\nEND\r\n", "malformed VALUE line");
    row("missing length", "g", "VALUE k 0\r\n", "malformed VALUE line");
    row("missing everything", "g", "VALUE \r\n", "malformed VALUE line");
    row("double blank", "g", "VALUE  k 0 1\r\nx\r\nEND\r\n", "malformed VALUE line");
    row("trailing blank after length", "g", "VALUE k 0 1 \r\nx\r\nEND\r\n", "malformed VALUE line");
    row("too many fields", "g", "VALUE k 0 1 2 3\r\nx\r\nEND\r\n", "malformed VALUE line");
    row("bad cas", "g", "VALUE k 0 1 x\r\nx\r\nEND\r\n", "malformed VALUE line");
    row("control byte in key", "g", "VALUE k\x01y 0 1\r\nx\r\nEND\r\n", "malformed VALUE line");
    row("overlong line", "s", std::string(5000, 'A') + "\r\n", "longer than 2048");
    row("overlong line without end", "g", std::string(3000, 'x'), "longer than 2048");
    row("overlong VALUE line", "g", "VALUE " + std::string(3000, 'k') + " 0 1\r\nx\r\nEND\r\n",
        "longer than 2048");
    row("line one byte too long", "s",
        "SERVER_ERROR " + std::string(MemcacheReplyParser::kMaxLineBytes - 12, 'm') + "\r\n",
        "longer than 2048");
    row("reply with nothing outstanding", "g", "END\r\nEND\r\n", "no command outstanding");
    row("extra byte after a reply", "s", "STORED\r\nX", "no command outstanding");
}

void TestMemcacheReplyParser::malformedReplies() {
    QFETCH(std::string, commands);
    QFETCH(std::string, stream);
    QFETCH(std::string, reason);

    const std::vector<Outcome> whole = parse(commands, stream, {});
    QVERIFY(!whole.empty());
    QCOMPARE(int(whole.back().status), int(Status::Malformed));
    QVERIFY2(whole.back().error.find(reason) != std::string::npos, whole.back().error.c_str());
    for (size_t i = 0; i + 1 < whole.size(); ++i)
        QCOMPARE(int(whole[i].status), int(Status::Complete));

    for (size_t cut = 1; cut < stream.size(); ++cut)
        QVERIFY2(parse(commands, stream, {cut}) == whole,
                 qPrintable(QStringLiteral("split at %1").arg(cut)));
    const std::vector<Outcome> bytes = parse(commands, stream, everyByte(stream.size()));
    QVERIFY2(bytes == whole, describe(bytes).c_str());
}

void TestMemcacheReplyParser::endOfStream() {
    MemcacheReplyParser parser;
    QCOMPARE(int(parser.finishAtEof().status), int(Status::NeedMore)); // nothing asked

    parser.begin(MemcacheCommandKind::Retrieval);
    FeedResult r = parser.finishAtEof();
    QCOMPARE(int(r.status), int(Status::Malformed));
    QVERIFY(parser.error().find("before the reply") != std::string_view::npos);

    parser.begin(MemcacheCommandKind::Retrieval);
    QCOMPARE(int(parser.feed("VALUE k 0 5\r\nhel").status), int(Status::NeedMore));
    r = parser.finishAtEof();
    QCOMPARE(int(r.status), int(Status::Malformed));
    QVERIFY(parser.error().find("middle of a reply (16 bytes") != std::string_view::npos);

    parser.begin(MemcacheCommandKind::Storage);
    QCOMPARE(int(parser.feed("STORED\r").status), int(Status::NeedMore));
    QCOMPARE(int(parser.finishAtEof().status), int(Status::Malformed));

    parser.begin(MemcacheCommandKind::Storage);
    r = parser.feed("STORED\r\n");
    QCOMPARE(int(r.status), int(Status::Complete));
    QCOMPARE(r.consumed, size_t(8));
    QCOMPARE(int(parser.finishAtEof().status), int(Status::NeedMore));
}

QTEST_GUILESS_MAIN(TestMemcacheReplyParser)
#include "tst_memcache_reply_parser.moc"
