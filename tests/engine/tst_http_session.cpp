// An HTTP ProtocolSession as the engine drives it: the first Server header,
// the last error, a reset between connections, and HEAD's bodiless answers.
#include "engine/http_protocol.h"
#include "http_response_bytes.h"

#include <QTest>
#include <string_view>

using namespace loadscope::engine;
using test::view;
using test::withContentLength;

class TestHttpSession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void capturesFirstServerOnly();
    void reportsLastError();
    void resetForgetsPartialResponse();
    void headReadsNoBody();
};

void TestHttpSession::capturesFirstServerOnly() {
    HttpRequestSpec spec;
    spec.host = "127.0.0.1";
    const HttpProtocol protocol(spec);
    const auto session = protocol.newSession(0, 1);
    QVERIFY(session->serverSoftware().empty());

    const QByteArray first = withContentLength(200, "one", "Server: nginx/1.22.1\r\n");
    const QByteArray second = withContentLength(200, "two", "Server: other\r\n");
    const QByteArray both = first + second;
    FeedResult r = session->feed(view(both));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.consumed, static_cast<size_t>(first.size()));
    r = session->feed(view(both).substr(r.consumed));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.info.bodyBytes, uint64_t{3});
    QCOMPARE(session->serverSoftware(), std::string_view("nginx/1.22.1"));

    session->resetConnection();
    QCOMPARE(session->feed(view(second)).status, FeedResult::Status::Complete);
    QCOMPARE(session->serverSoftware(), std::string_view("nginx/1.22.1"));
}

void TestHttpSession::reportsLastError() {
    const HttpProtocol protocol(HttpRequestSpec{});
    const auto session = protocol.newSession(0, 1);
    QVERIFY(session->lastError().empty());
    const QByteArray cut = "HTTP/1.1 200 OK\r\nContent-Length: 4897\r\n\r\n" + QByteArray(100, 'x');
    QCOMPARE(session->feed(view(cut)).status, FeedResult::Status::NeedMore);
    QCOMPARE(session->finishAtEof().status, FeedResult::Status::Malformed);
    QCOMPARE(session->lastError(),
             std::string_view("connection closed after 100 of 4897 body bytes"));

    // The error stays readable after the engine reconnects.
    session->resetConnection();
    QCOMPARE(session->lastError(),
             std::string_view("connection closed after 100 of 4897 body bytes"));
    QCOMPARE(session->feed("HTTP/1.1 abc\r\n").status, FeedResult::Status::Malformed);
    QCOMPARE(session->lastError(), std::string_view("malformed status line"));
}

void TestHttpSession::resetForgetsPartialResponse() {
    const HttpProtocol protocol(HttpRequestSpec{});
    const auto session = protocol.newSession(3, 7);
    QCOMPARE(session->feed("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\npartial").status,
             FeedResult::Status::NeedMore);
    session->resetConnection();
    QCOMPARE(session->finishAtEof().status, FeedResult::Status::NeedMore);

    const QByteArray response = withContentLength(200, "fresh");
    const FeedResult r = session->feed(view(response));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.consumed, static_cast<size_t>(response.size()));
    QCOMPARE(r.info.bodyBytes, uint64_t{5});
}

void TestHttpSession::headReadsNoBody() {
    HttpRequestSpec spec;
    spec.method = "HEAD";
    const HttpProtocol protocol(spec);
    const auto session = protocol.newSession(0, 1);
    const QByteArray two = "HTTP/1.1 200 OK\r\nContent-Length: 4897\r\n\r\n"
                           "HTTP/1.1 200 OK\r\nContent-Length: 4897\r\n\r\n";
    FeedResult r = session->feed(view(two));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.info.bodyBytes, uint64_t{0});
    QCOMPARE(r.consumed, static_cast<size_t>(two.size() / 2));
    r = session->feed(view(two).substr(r.consumed));
    QCOMPARE(r.status, FeedResult::Status::Complete);
    QCOMPARE(r.consumed, static_cast<size_t>(two.size() / 2));
}

QTEST_GUILESS_MAIN(TestHttpSession)
#include "tst_http_session.moc"
