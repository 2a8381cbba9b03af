#include "engine/http_protocol.h"
#include "engine/http_response_parser.h"
#include "http_response_bytes.h"

#include <QTest>
#include <string>
#include <string_view>
#include <vector>

using namespace loadscope::engine;
using test::view;
using test::withContentLength;

namespace {

QString describe(const ResponseInfo& info, size_t end) {
    return QStringLiteral("%1 %2 %3 @%4")
        .arg(info.statusCode)
        .arg(info.bodyBytes)
        .arg(info.keepAlive ? QStringLiteral("ka") : QStringLiteral("close"))
        .arg(end);
}

// Feeds `input` cut at `cuts` (ascending offsets) the way the load engine
// does: a Complete result's leftover is fed again, and the stream ends with
// finishAtEof(). Returns one entry per response, "STATUS BODY ka|close @END"
// with END the offset just past the response, then "malformed: TEXT" if the
// parser gave up. Any breach of the feed contract shows up as an entry too.
QString parseStream(std::string_view input, bool head, const std::vector<size_t>& cuts) {
    HttpResponseParser parser;
    parser.begin(head);
    QStringList out;
    size_t pieceStart = 0;
    for (size_t i = 0; i <= cuts.size(); ++i) {
        const size_t pieceEnd = i < cuts.size() ? cuts[i] : input.size();
        std::string_view piece = input.substr(pieceStart, pieceEnd - pieceStart);
        size_t offset = pieceStart;
        pieceStart = pieceEnd;
        while (true) {
            const FeedResult r = parser.feed(piece);
            if (r.consumed > piece.size()) {
                out << QStringLiteral("consumed past the input");
                return out.join(u' ');
            }
            if (r.status == FeedResult::Status::Malformed) {
                out << QStringLiteral("malformed: %1")
                           .arg(QString::fromStdString(std::string(parser.error())));
                return out.join(u' ');
            }
            if (r.status == FeedResult::Status::NeedMore) {
                if (r.consumed != piece.size())
                    out << QStringLiteral("NeedMore left bytes");
                break;
            }
            if (r.consumed == 0 && !piece.empty()) {
                out << QStringLiteral("empty response");
                return out.join(u' ');
            }
            offset += r.consumed;
            out << describe(r.info, offset);
            piece.remove_prefix(r.consumed);
            parser.begin(head);
            if (piece.empty())
                break;
        }
    }
    const FeedResult eof = parser.finishAtEof();
    if (eof.status == FeedResult::Status::Complete)
        out << describe(eof.info, input.size());
    else if (eof.status == FeedResult::Status::Malformed)
        out << QStringLiteral("malformed: %1")
                   .arg(QString::fromStdString(std::string(parser.error())));
    return out.join(u' ');
}

// As parseStream() of the whole input, but the bytes the parser says it only
// counts (skippableBytes) are skipped, at most `most` at a time, without being
// shown to it: as the engine takes them from the socket with MSG_TRUNC.
QString skipStream(std::string_view input, bool head, size_t most) {
    HttpResponseParser parser;
    parser.begin(head);
    QStringList out;
    size_t offset = 0;
    while (offset < input.size()) {
        const uint64_t skippable = parser.skippableBytes();
        const size_t n = skippable > 0
                             ? size_t(std::min<uint64_t>({skippable, most, input.size() - offset}))
                             : 0;
        const FeedResult r = n > 0 ? parser.skip(n) : parser.feed(input.substr(offset));
        if (r.status == FeedResult::Status::Malformed) {
            out << QStringLiteral("malformed: %1")
                       .arg(QString::fromStdString(std::string(parser.error())));
            return out.join(u' ');
        }
        if (n > 0 && r.consumed != n) {
            out << QStringLiteral("skip consumed %1 of %2").arg(r.consumed).arg(n);
            return out.join(u' ');
        }
        offset += r.consumed;
        if (r.status == FeedResult::Status::Complete) {
            out << describe(r.info, offset);
            parser.begin(head);
        }
    }
    const FeedResult eof = parser.finishAtEof();
    if (eof.status == FeedResult::Status::Complete)
        out << describe(eof.info, input.size());
    else if (eof.status == FeedResult::Status::Malformed)
        out << QStringLiteral("malformed: %1")
                   .arg(QString::fromStdString(std::string(parser.error())));
    return out.join(u' ');
}

QString parseWhole(const QByteArray& input, bool head) {
    return parseStream(view(input), head, {});
}

struct Expected {
    QByteArray bytes;
    int status;
    int body;
    bool keepAlive;
};

// Concatenates the responses and states what parsing them must report; the
// end offsets follow from the sizes of the pieces, not from the parser.
void addValidRow(const char* name, const std::vector<Expected>& responses, bool head = false) {
    QByteArray input;
    QStringList expected;
    for (const Expected& e : responses) {
        input += e.bytes;
        ResponseInfo info;
        info.statusCode = e.status;
        info.bodyBytes = static_cast<uint64_t>(e.body);
        info.keepAlive = e.keepAlive;
        expected << describe(info, static_cast<size_t>(input.size()));
    }
    QTest::newRow(name) << input << head << expected.join(u' ');
}

// Checks the result for the whole input, every two-piece split and
// byte-by-byte. `stride` thins the two-piece splits of very large inputs.
void checkEverySplit(const QByteArray& input, bool head, const QString& expected, int stride = 1) {
    const std::string_view bytes = view(input);
    QCOMPARE(parseStream(bytes, head, {}), expected);

    for (size_t cut = 1; cut < bytes.size(); cut += static_cast<size_t>(stride)) {
        const QString got = parseStream(bytes, head, {cut});
        if (got != expected) {
            QCOMPARE(got + QStringLiteral(" (split at %1)").arg(cut),
                     expected + QStringLiteral(" (split at %1)").arg(cut));
        }
    }

    std::vector<size_t> everyByte;
    for (size_t cut = 1; cut < bytes.size(); ++cut)
        everyByte.push_back(cut);
    QCOMPARE(parseStream(bytes, head, everyByte), expected);
}

QByteArray paddingHeaders(int totalBytes) {
    // Lines of "X-Pad: aaa...\r\n" adding up to exactly totalBytes.
    QByteArray out;
    while (out.size() < totalBytes) {
        const int left = totalBytes - static_cast<int>(out.size());
        const int line = left >= 1000 + 10 ? 1000 : left; // keep the last line >= 10 bytes
        out += "X-Pad: " + QByteArray(line - 9, 'a') + "\r\n";
    }
    return out;
}

} // namespace

class TestHttpResponseParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validResponses_data();
    void validResponses();
    void skippedBodiesGiveTheSameResponses_data() { validResponses_data(); }
    void skippedBodiesGiveTheSameResponses();
    void malformedResponses_data();
    void malformedResponses();

    void headerBlockLimitIsExact();
    void detailsOfLastResponse();
    void failureIsSticky();
    void eofWithNothingInProgress();
    void inProgressTracksPartialResponses();
};

void TestHttpResponseParser::skippedBodiesGiveTheSameResponses() {
    QFETCH(QByteArray, input);
    QFETCH(bool, head);
    QFETCH(QString, expected);
    for (size_t most : {size_t(1), size_t(3), size_t(1) << 20})
        QCOMPARE(skipStream(view(input), head, most), expected);
    // Nothing a head is made of is ever skippable.
    HttpResponseParser parser;
    parser.begin(head);
    QCOMPARE(parser.skippableBytes(), uint64_t(0));
}

void TestHttpResponseParser::validResponses_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("head");
    QTest::addColumn<QString>("expected");

    addValidRow("content-length",
                {{"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Type: text/html\r\n"
                  "Content-Length: 5\r\n\r\nhello",
                  200, 5, true}});
    addValidRow("chunked with extensions and trailers",
                {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "5;name=value\r\nhello\r\n7 ; a=b;c=\"d\"\r\n, world\r\n0;last\r\n"
                  "X-Checksum: abc\r\nX-Other: 1\r\n\r\n",
                  200, 84, true}}); // the body as it came, as ab counts it (12 bytes of payload)
    addValidRow("chunked, hex digits of both cases and leading zeros",
                {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "00a\r\n0123456789\r\n1F\r\n" +
                      QByteArray(31, 'x') + "\r\n000\r\n\r\n",
                  200, 61, true}});
    addValidRow("chunked wins over Content-Length",
                {{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "3\r\nabc\r\n0\r\n\r\n",
                  200, 13, true}});
    addValidRow("header names and values of any case",
                {{"HTTP/1.1 200 OK\r\ncontent-LENGTH:3\r\nCONNECTION:   Keep-Alive  \r\n\r\nabc",
                  200, 3, true},
                 {"HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: Chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", 200,
                  12, true}});
    addValidRow("100 Continue then 200",
                {{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                  200, 2, true}});
    addValidRow("102 and 103 with headers then 200",
                {{"HTTP/1.1 102 Processing\r\n\r\n"
                  "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n"
                  "Content-Length: 999\r\nConnection: close\r\n\r\n"
                  "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone",
                  200, 4, true}});
    addValidRow("HEAD with Content-Length",
                {{"HTTP/1.1 200 OK\r\nContent-Length: 4897\r\n\r\n", 200, 0, true},
                 {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 200, 0, true}},
                true);
    addValidRow("204 and 304 have no body",
                {{"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 204, 0, true},
                 {"HTTP/1.1 304 Not Modified\r\nContent-Length: 4897\r\n\r\n", 304, 0, true},
                 {withContentLength(200, "next"), 200, 4, true}});
    addValidRow(
        "close-delimited body",
        {{"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end\r\n", 200, 15, false}});
    addValidRow("close-delimited when the final coding is not chunked",
                {{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"
                  "0\r\n\r\n",
                  200, 5, false}});
    addValidRow("HTTP/1.0 closes by default",
                {{"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, 5, false}});
    addValidRow("HTTP/1.0 with keep-alive",
                {{"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello",
                  200, 5, true},
                 {"HTTP/1.0 200 OK\r\n\r\nrest", 200, 4, false}});
    addValidRow(
        "Connection: close",
        {{"HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 3\r\n\r\nabc", 200, 3, false}});
    addValidRow("Connection list with close",
                {{"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nConnection: upgrade, CLOSE\r\n"
                  "Content-Length: 0\r\n\r\n",
                  200, 0, false}});
    addValidRow("pipelined responses back to back",
                {{withContentLength(200, "first"), 200, 5, true},
                 {"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "4\r\nnope\r\n0\r\n\r\n",
                  404, 14, true},
                 {"HTTP/1.1 204 No Content\r\n\r\n", 204, 0, true},
                 {withContentLength(500, "oops"), 500, 4, true},
                 {withContentLength(200, "last", "Connection: close\r\n"), 200, 4, false}});
    addValidRow("zero-length body", {{withContentLength(200, ""), 200, 0, true}});
    addValidRow("empty reason phrase",
                {{"HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx", 200, 1, true},
                 {"HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", 404, 0, true}});
    addValidRow("bare LF line endings",
                {{"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 200, 2, true},
                 {"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\n\n", 200, 8, true}});
    addValidRow("repeated identical Content-Length",
                {{"HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc", 200, 3,
                  true}});
    addValidRow("folded line of an unimportant header",
                {{"HTTP/1.1 200 OK\r\nX-Long: part one\r\n  part two\r\nContent-Length: 1\r\n\r\n!",
                  200, 1, true}});
    addValidRow("blank lines between pipelined responses",
                {{withContentLength(200, "one"), 200, 3, true},
                 {"\r\n\r\n" + withContentLength(200, "two"), 200, 3, true}});
    addValidRow("large body", {{withContentLength(200, QByteArray(70000, 'b')), 200, 70000, true}});
    addValidRow(
        "large chunked body",
        {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9c40\r\n" + QByteArray(40000, 'c') +
              "\r\n7530\r\n" + QByteArray(30000, 'd') + "\r\n0\r\n\r\n",
          200, 70021, true}});
    addValidRow(
        "nginx-like page",
        {{withContentLength(200, QByteArray(4897, 'p'),
                            "Server: nginx/1.22.1\r\nDate: Mon, 30 Nov 2026 10:00:00 GMT\r\n"
                            "Content-Type: text/html\r\nLast-Modified: Mon, 30 Nov 2026 "
                            "09:00:00 GMT\r\nConnection: keep-alive\r\nETag: "
                            "\"5f1-1321\"\r\nAccept-Ranges: bytes\r\n"),
          200, 4897, true}});
}

void TestHttpResponseParser::validResponses() {
    QFETCH(QByteArray, input);
    QFETCH(bool, head);
    QFETCH(QString, expected);
    checkEverySplit(input, head, expected);
}

void TestHttpResponseParser::malformedResponses_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("expected");

    const QByteArray ok = "HTTP/1.1 200 OK\r\n";
    const QByteArray chunked = ok + "Transfer-Encoding: chunked\r\n\r\n";
    const QString firstOk =
        QStringLiteral("200 2 ka @%1 ").arg(withContentLength(200, "ok").size());

    QTest::newRow("status line without code") << ok.left(9) + "OK\r\n\r\n"
                                              << "malformed: malformed status line";
    QTest::newRow("not HTTP") << QByteArray("ICY 200 OK\r\n\r\n")
                              << "malformed: malformed status line";
    QTest::newRow("HTTP/2 status line")
        << QByteArray("HTTP/2 200\r\n\r\n") << "malformed: malformed status line";
    QTest::newRow("two-digit status")
        << QByteArray("HTTP/1.1 20 OK\r\n\r\n") << "malformed: malformed status line";
    QTest::newRow("four-digit status")
        << QByteArray("HTTP/1.1 2000 OK\r\n\r\n") << "malformed: malformed status line";
    QTest::newRow("status below 100")
        << QByteArray("HTTP/1.1 099 Low\r\n\r\n") << "malformed: malformed status line";
    QTest::newRow("HTML instead of a response")
        << QByteArray("<html><body>hello</body></html>") << "malformed: malformed status line";
    QTest::newRow("garbage after a good response")
        << withContentLength(200, "ok") + "garbage\r\n"
        << firstOk + QStringLiteral("malformed: malformed status line");
    QTest::newRow("header line without colon") << ok + "Content-Length 5\r\n\r\nhello"
                                               << "malformed: malformed header line";
    QTest::newRow("space before colon") << ok + "Content-Length : 5\r\n\r\nhello"
                                        << "malformed: malformed header line";
    QTest::newRow("folded Content-Length") << ok + "Content-Length: 5\r\n 6\r\n\r\nhello"
                                           << "malformed: folded header line";
    QTest::newRow("headers over 64 KiB") << ok + paddingHeaders(70000) + "\r\n"
                                         << "malformed: headers over 64 KiB";
    QTest::newRow("one header line over 64 KiB")
        << ok + "X-Huge: " + QByteArray(70000, 'h') << "malformed: headers over 64 KiB";
    QTest::newRow("status line over 64 KiB")
        << "HTTP/1.1 200 " + QByteArray(70000, 'r') << "malformed: headers over 64 KiB";
    QTest::newRow("interim responses reset the limit, not the final one")
        << "HTTP/1.1 100 Continue\r\n" + paddingHeaders(60000) + "\r\n" + ok +
               paddingHeaders(70000) + "\r\n"
        << "malformed: headers over 64 KiB";
    QTest::newRow("chunk size not hex") << chunked + "zz\r\n"
                                        << "malformed: invalid chunk size";
    QTest::newRow("chunk size empty") << chunked + "\r\nabc"
                                      << "malformed: invalid chunk size";
    QTest::newRow("chunk size negative") << chunked + "-5\r\n"
                                         << "malformed: invalid chunk size";
    QTest::newRow("chunk size with junk") << chunked + "5x\r\nhello\r\n"
                                          << "malformed: invalid chunk size";
    QTest::newRow("chunk size with leading space") << chunked + " 5\r\nhello\r\n"
                                                   << "malformed: invalid chunk size";
    QTest::newRow("chunk size overflow") << chunked + "1ffffffffffffffff\r\n"
                                         << "malformed: chunk size overflow";
    QTest::newRow("chunk size line over 64 KiB")
        << chunked + "5;" + QByteArray(70000, 'e') << "malformed: chunk size line over 64 KiB";
    QTest::newRow("missing CRLF after chunk data") << chunked + "5\r\nhelloX\r\n0\r\n\r\n"
                                                   << "malformed: missing CRLF after chunk data";
    QTest::newRow("CR without LF after chunk data") << chunked + "5\r\nhello\rX"
                                                    << "malformed: missing CRLF after chunk data";
    QTest::newRow("two CRs after chunk data") << chunked + "5\r\nhello\r\r\n0\r\n\r\n"
                                              << "malformed: missing CRLF after chunk data";
    QTest::newRow("malformed trailer line") << chunked + "0\r\nnot a trailer\r\n\r\n"
                                            << "malformed: malformed trailer line";
    QTest::newRow("trailers over 64 KiB") << chunked + "0\r\n" + paddingHeaders(70000) + "\r\n"
                                          << "malformed: trailers over 64 KiB";
    QTest::newRow("conflicting Content-Length headers")
        << ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello"
        << "malformed: conflicting Content-Length";
    QTest::newRow("conflicting Content-Length list") << ok + "Content-Length: 5, 6\r\n\r\nhello"
                                                     << "malformed: conflicting Content-Length";
    QTest::newRow("negative Content-Length") << ok + "Content-Length: -1\r\n\r\n"
                                             << "malformed: invalid Content-Length";
    QTest::newRow("garbage Content-Length") << ok + "Content-Length: 12abc\r\n\r\n"
                                            << "malformed: invalid Content-Length";
    QTest::newRow("empty Content-Length") << ok + "Content-Length:\r\n\r\n"
                                          << "malformed: invalid Content-Length";
    QTest::newRow("overflowing Content-Length")
        << ok + "Content-Length: 99999999999999999999\r\n\r\n"
        << "malformed: invalid Content-Length";
    QTest::newRow("101 Switching Protocols")
        << QByteArray("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
        << "malformed: unexpected 101 Switching Protocols";
    QTest::newRow("body shorter than Content-Length then EOF")
        << ok + "Content-Length: 4897\r\n\r\n" + QByteArray(100, 'x')
        << "malformed: connection closed after 100 of 4897 body bytes";
    QTest::newRow("EOF right after the headers")
        << ok + "Content-Length: 10\r\n\r\n"
        << "malformed: connection closed after 0 of 10 body bytes";
    QTest::newRow("EOF in headers") << ok + "Content-Le"
                                    << "malformed: connection closed in headers";
    QTest::newRow("EOF in status line")
        << QByteArray("HTTP/1.1 20") << "malformed: connection closed in headers";
    QTest::newRow("EOF after an interim response")
        << QByteArray("HTTP/1.1 100 Continue\r\n\r\n")
        << "malformed: connection closed before the final response";
    QTest::newRow("EOF in chunked body")
        << chunked + "5\r\nhello\r\n9\r\nabc"
        << "malformed: connection closed in chunked body after 16 body bytes";
    QTest::newRow("EOF in trailers") << chunked + "0\r\nX-Sum: 1\r\n"
                                     << "malformed: connection closed in trailers";
    QTest::newRow("EOF in second pipelined response")
        << withContentLength(200, "ok") + "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"
        << firstOk + QStringLiteral("malformed: connection closed after 3 of 9 body bytes");
}

void TestHttpResponseParser::malformedResponses() {
    QFETCH(QByteArray, input);
    QFETCH(QString, expected);
    // Every boundary of the small cases; inputs past the 64 KiB limit are cut
    // at a prime stride, which still puts cuts inside and around every line.
    checkEverySplit(input, false, expected, input.size() > 8192 ? 61 : 1);
}

void TestHttpResponseParser::headerBlockLimitIsExact() {
    const QByteArray statusLine = "HTTP/1.1 200 OK\r\n";
    const QByteArray tail = "Content-Length: 2\r\n\r\n";
    const int padding = static_cast<int>(HttpResponseParser::kMaxHeaderBytes) -
                        static_cast<int>(statusLine.size() + tail.size());
    const QByteArray atLimit = statusLine + paddingHeaders(padding) + tail;
    QCOMPARE(atLimit.size(), static_cast<qsizetype>(HttpResponseParser::kMaxHeaderBytes));

    const QByteArray fits = atLimit + "ok";
    checkEverySplit(fits, false, QStringLiteral("200 2 ka @%1").arg(fits.size()), 7);

    HttpResponseParser parser;
    parser.begin(false);
    QCOMPARE(parser.feed(view(fits)).status, FeedResult::Status::Complete);
    QCOMPARE(parser.headerBytes(), HttpResponseParser::kMaxHeaderBytes);

    const QByteArray tooBig = statusLine + paddingHeaders(padding + 1) + tail + "ok";
    QCOMPARE(parseWhole(tooBig, false), QStringLiteral("malformed: headers over 64 KiB"));
}

void TestHttpResponseParser::detailsOfLastResponse() {
    const QByteArray response = "HTTP/1.1 100 Continue\r\nServer: interim\r\n\r\n"
                                "HTTP/1.1 201 Created\r\nserver:  Apache/2.4.57 (Debian) \r\n"
                                "Content-Length: 7\r\n\r\ncreated";
    HttpResponseParser parser;
    parser.begin(false);
    const FeedResult r = parser.feed(view(response));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.consumed, static_cast<size_t>(response.size()));
    QCOMPARE(r.info.statusCode, 201);
    QCOMPARE(r.info.bodyBytes, uint64_t{7});
    QCOMPARE(parser.statusCode(), 201);
    QCOMPARE(parser.bodyBytes(), uint64_t{7});
    QVERIFY(parser.keepAlive());
    QCOMPARE(parser.server(), std::string_view("Apache/2.4.57 (Debian)"));
    // The final response's header block: from its status line to the blank line.
    QCOMPARE(parser.headerBytes(), static_cast<uint64_t>(response.size() - 7 - 42));
    QVERIFY(parser.error().empty());
}

void TestHttpResponseParser::failureIsSticky() {
    HttpResponseParser parser;
    parser.begin(false);
    QCOMPARE(parser.feed("HTTP/1.1 200 OK\r\nbad line\r\n").status, FeedResult::Status::Malformed);
    QCOMPARE(parser.error(), std::string_view("malformed header line"));
    QCOMPARE(parser.feed(view(withContentLength(200, "ok"))).status, FeedResult::Status::Malformed);
    QCOMPARE(parser.finishAtEof().status, FeedResult::Status::Malformed);
    QCOMPARE(parser.error(), std::string_view("malformed header line"));

    parser.begin(false);
    QVERIFY(parser.error().empty());
    QCOMPARE(parser.feed(view(withContentLength(200, "ok"))).status, FeedResult::Status::Complete);
}

void TestHttpResponseParser::eofWithNothingInProgress() {
    HttpResponseParser parser;
    parser.begin(false);
    QCOMPARE(parser.finishAtEof().status, FeedResult::Status::NeedMore);

    // Blank lines a server sends after a response do not start a new one.
    QCOMPARE(parser.feed("\r\n\r\n").status, FeedResult::Status::NeedMore);
    QCOMPARE(parser.finishAtEof().status, FeedResult::Status::NeedMore);

    parser.begin(false);
    QCOMPARE(parser.feed(view(withContentLength(200, "ok"))).status, FeedResult::Status::Complete);
    QCOMPARE(parser.finishAtEof().status, FeedResult::Status::NeedMore);
}

void TestHttpResponseParser::inProgressTracksPartialResponses() {
    HttpResponseParser parser;
    parser.begin(false);
    QVERIFY(!parser.inProgress());
    QVERIFY(!parser.sawAnyByte());
    QCOMPARE(parser.feed("HTTP/1.").status, FeedResult::Status::NeedMore);
    QVERIFY(parser.inProgress());
    QVERIFY(parser.sawAnyByte());
    QCOMPARE(parser.feed("1 200 OK\r\nContent-Length: 1\r\n\r\n").status,
             FeedResult::Status::NeedMore);
    QVERIFY(parser.inProgress());
    QCOMPARE(parser.feed("x").status, FeedResult::Status::Complete);
    QVERIFY(!parser.inProgress());
}

QTEST_GUILESS_MAIN(TestHttpResponseParser)
#include "tst_http_response_parser.moc"
