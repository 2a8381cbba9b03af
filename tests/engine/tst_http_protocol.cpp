#include "engine/http_protocol.h"

#include <QTest>
#include <string>

using namespace loadscope::engine;

namespace {

std::string toStd(const QString& s) {
    return s.toStdString();
}

} // namespace

class TestHttpProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildRequest_data();
    void buildRequest();
    void protocolBuildsTheRequestOnce();
    void http10RequestIsWhatAbSends_data();
    void http10RequestIsWhatAbSends();
    void parseUrl_data();
    void parseUrl();
    void parseUrlErrors_data();
    void parseUrlErrors();
};

void TestHttpProtocol::http10RequestIsWhatAbSends_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("keepAlive");
    QTest::addColumn<QByteArray>("expected");
    // ab 2.3: "HTTP/1.0", "Connection: Keep-Alive" only with -k, the content
    // fields, then Host, User-Agent, Accept (the user agent here is ours).
    const QByteArray tail = "Host: h:8080\r\nUser-Agent: Loadscope\r\nAccept: */*\r\n\r\n";
    QTest::newRow("ab -k") << "GET" << QByteArray{} << true
                           << "GET /p HTTP/1.0\r\nConnection: Keep-Alive\r\n" + tail;
    QTest::newRow("ab") << "GET" << QByteArray{} << false << "GET /p HTTP/1.0\r\n" + tail;
    QTest::newRow("ab -p") << "POST" << QByteArray("abc") << false
                           << "POST /p HTTP/1.0\r\nContent-Length: 3\r\n"
                              "Content-Type: text/plain\r\n" +
                                  tail + "abc";
}

void TestHttpProtocol::http10RequestIsWhatAbSends() {
    QFETCH(QString, method);
    QFETCH(QByteArray, body);
    QFETCH(bool, keepAlive);
    QFETCH(QByteArray, expected);
    HttpRequestSpec spec;
    spec.method = toStd(method);
    spec.host = "h:8080";
    spec.pathAndQuery = "/p";
    spec.body = body.toStdString();
    spec.contentType = "text/plain";
    spec.keepAlive = keepAlive;
    spec.http10 = true;
    QCOMPARE(QByteArray::fromStdString(buildHttpRequest(spec)), expected);
}

void TestHttpProtocol::buildRequest_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArrayList>("headers"); // "Name: value"
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("contentType");
    QTest::addColumn<bool>("keepAlive");
    QTest::addColumn<QByteArray>("expected");

    const QByteArray defaults = "User-Agent: Loadscope\r\nAccept: */*\r\n";

    QTest::newRow("GET") << "GET"
                         << "127.0.0.1:8080"
                         << "/" << QByteArrayList{} << QByteArray{} << QString{} << true
                         << "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" + defaults + "\r\n";
    QTest::newRow("GET with query")
        << "GET"
        << "example.com"
        << "/search?q=load&page=2" << QByteArrayList{} << QByteArray{} << QString{} << true
        << "GET /search?q=load&page=2 HTTP/1.1\r\nHost: example.com\r\n" + defaults + "\r\n";
    QTest::newRow("HEAD") << "HEAD"
                          << "[::1]:8080"
                          << "/index.html" << QByteArrayList{} << QByteArray{} << QString{} << true
                          << "HEAD /index.html HTTP/1.1\r\nHost: [::1]:8080\r\n" + defaults +
                                 "\r\n";
    QTest::newRow("POST with body and content type")
        << "POST"
        << "h"
        << "/submit" << QByteArrayList{} << QByteArray("{\"n\": 1}") << "application/json" << true
        << "POST /submit HTTP/1.1\r\nHost: h\r\n" + defaults +
               "Content-Type: application/json\r\nContent-Length: 8\r\n\r\n{\"n\": 1}";
    QTest::newRow("POST with body, no content type")
        << "POST"
        << "h"
        << "/" << QByteArrayList{} << QByteArray("a=1") << QString{} << true
        << "POST / HTTP/1.1\r\nHost: h\r\n" + defaults + "Content-Length: 3\r\n\r\na=1";
    QTest::newRow("POST without body still says its length")
        << "POST"
        << "h"
        << "/" << QByteArrayList{} << QByteArray{} << "text/plain" << true
        << "POST / HTTP/1.1\r\nHost: h\r\n" + defaults + "Content-Length: 0\r\n\r\n";
    QTest::newRow("PUT with body")
        << "PUT"
        << "h:81"
        << "/item/7" << QByteArrayList{} << QByteArray("payload\n") << "text/plain" << true
        << "PUT /item/7 HTTP/1.1\r\nHost: h:81\r\n" + defaults +
               "Content-Type: text/plain\r\nContent-Length: 8\r\n\r\npayload\n";
    QTest::newRow("DELETE") << "DELETE"
                            << "h"
                            << "/item/7" << QByteArrayList{} << QByteArray{} << QString{} << true
                            << "DELETE /item/7 HTTP/1.1\r\nHost: h\r\n" + defaults + "\r\n";
    QTest::newRow("keep-alive off")
        << "GET"
        << "h"
        << "/" << QByteArrayList{} << QByteArray{} << QString{} << false
        << "GET / HTTP/1.1\r\nHost: h\r\n" + defaults + "Connection: close\r\n\r\n";
    QTest::newRow("header override")
        << "GET"
        << "h"
        << "/"
        << QByteArrayList{"user-agent: custom/1.0", "X-Extra: 1", "ACCEPT: text/html",
                          "Cookie: a=1", "Cookie: b=2"}
        << QByteArray{} << QString{} << true
        << QByteArray("GET / HTTP/1.1\r\nHost: h\r\nuser-agent: custom/1.0\r\nACCEPT: text/html\r\n"
                      "X-Extra: 1\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n");
    QTest::newRow("override of Host, Connection and Content-Type")
        << "POST"
        << "10.0.0.1"
        << "/"
        << QByteArrayList{"Host: virtual.example", "Connection: keep-alive",
                          "content-type: text/csv"}
        << QByteArray("x,y\n") << "text/plain" << false
        << "POST / HTTP/1.1\r\nHost: virtual.example\r\n" + defaults +
               "Connection: keep-alive\r\ncontent-type: text/csv\r\nContent-Length: 4\r\n\r\nx,y\n";
    QTest::newRow("header with empty value")
        << "GET"
        << "h"
        << "/" << QByteArrayList{"Accept:"} << QByteArray{} << QString{} << true
        << QByteArray("GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: Loadscope\r\nAccept:\r\n\r\n");
}

void TestHttpProtocol::buildRequest() {
    QFETCH(QString, method);
    QFETCH(QString, host);
    QFETCH(QString, path);
    QFETCH(QByteArrayList, headers);
    QFETCH(QByteArray, body);
    QFETCH(QString, contentType);
    QFETCH(bool, keepAlive);
    QFETCH(QByteArray, expected);

    HttpRequestSpec spec;
    spec.method = toStd(method);
    spec.host = toStd(host);
    spec.pathAndQuery = toStd(path);
    for (const QByteArray& h : headers) {
        const qsizetype colon = h.indexOf(':');
        spec.headers.emplace_back(h.left(colon).toStdString(),
                                  h.mid(colon + 1).trimmed().toStdString());
    }
    spec.body = body.toStdString();
    spec.contentType = toStd(contentType);
    spec.keepAlive = keepAlive;

    QCOMPARE(QByteArray::fromStdString(buildHttpRequest(spec)), expected);
}

void TestHttpProtocol::protocolBuildsTheRequestOnce() {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.host = "127.0.0.1:8080";
    spec.pathAndQuery = "/api";
    spec.body = "hello";
    spec.contentType = "text/plain";
    spec.keepAlive = false;
    spec.acceptVariableLength = true;
    const std::string expected = buildHttpRequest(spec);

    const HttpProtocol protocol(spec);
    QCOMPARE(protocol.requestBytes(), expected);
    QVERIFY(!protocol.keepAlive());
    QVERIFY(!protocol.checksDocumentLength());
    QCOMPARE(protocol.operationNames(), std::vector<std::string>{"request"});

    // Pipelining appends request after request to one buffer.
    const auto session = protocol.newSession(0, 42);
    std::string out = "previous";
    session->appendRequest(out);
    session->appendRequest(out);
    QCOMPARE(out, "previous" + expected + expected);

    spec.keepAlive = true;
    spec.acceptVariableLength = false;
    const HttpProtocol keepAlive(spec);
    QVERIFY(keepAlive.keepAlive());
    QVERIFY(keepAlive.checksDocumentLength());
}

void TestHttpProtocol::parseUrl_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("hostHeader");

    QTest::newRow("ip and port") << "http://127.0.0.1:8080/"
                                 << "127.0.0.1" << 8080 << "/"
                                 << "127.0.0.1:8080";
    QTest::newRow("default port, empty path") << "http://example.com"
                                              << "example.com" << 80 << "/"
                                              << "example.com";
    QTest::newRow("explicit port 80") << "http://example.com:80/a"
                                      << "example.com" << 80 << "/a"
                                      << "example.com";
    QTest::newRow("query kept, fragment dropped") << "http://h/index.html?x=1&y=2#top"
                                                  << "h" << 80 << "/index.html?x=1&y=2"
                                                  << "h";
    QTest::newRow("fragment only") << "http://h:81#top"
                                   << "h" << 81 << "/"
                                   << "h:81";
    QTest::newRow("query without path") << "http://h?q=1"
                                        << "h" << 80 << "/?q=1"
                                        << "h";
    QTest::newRow("scheme of any case") << "HTTP://Example.COM/A"
                                        << "Example.COM" << 80 << "/A"
                                        << "Example.COM";
    QTest::newRow("IPv6 with port") << "http://[::1]:8080/p"
                                    << "::1" << 8080 << "/p"
                                    << "[::1]:8080";
    QTest::newRow("IPv6 default port") << "http://[2001:db8::7]/"
                                       << "2001:db8::7" << 80 << "/"
                                       << "[2001:db8::7]";
    QTest::newRow("IPv6 with zone") << "http://[fe80::1%25eth0]:81/"
                                    << "fe80::1%eth0" << 81 << "/"
                                    << "[fe80::1]:81";
    QTest::newRow("empty port means default") << "http://h:/x"
                                              << "h" << 80 << "/x"
                                              << "h";
    QTest::newRow("highest port") << "http://h:65535/"
                                  << "h" << 65535 << "/"
                                  << "h:65535";
    QTest::newRow("https default port") << "https://h/x"
                                        << "h" << 443 << "/x"
                                        << "h";
    QTest::newRow("HTTPS upper case, port 80 named") << "HTTPS://h:80/"
                                                     << "h" << 80 << "/"
                                                     << "h:80";
    QTest::newRow("non-ASCII path escaped")
        << QStringLiteral("http://h/caf\u00e9") << "h" << 80 << "/caf%C3%A9"
        << "h";
}

void TestHttpProtocol::parseUrl() {
    QFETCH(QString, url);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, path);
    QFETCH(QString, hostHeader);

    std::string error = "untouched";
    const std::optional<HttpUrl> parsed = parseHttpUrl(toStd(url), &error);
    QVERIFY2(parsed.has_value(), error.c_str());
    QCOMPARE(QString::fromStdString(parsed->host), host);
    QCOMPARE(int(parsed->port), port);
    QCOMPARE(QString::fromStdString(parsed->pathAndQuery), path);
    QCOMPARE(QString::fromStdString(parsed->hostHeader), hostHeader);
}

void TestHttpProtocol::parseUrlErrors_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("error");

    QTest::newRow("no scheme") << "example.com/"
                               << "malformed URL 'example.com/'";
    QTest::newRow("empty") << ""
                           << "malformed URL ''";
    QTest::newRow("no host") << "http://"
                             << "malformed URL 'http://'";
    QTest::newRow("no host, path") << "http:///index.html"
                                   << "malformed URL 'http:///index.html'";
    QTest::newRow("ftp") << "ftp://example.com/"
                         << "unsupported scheme 'ftp': only http:// and https:// are supported";
    QTest::newRow("port too large") << "http://h:99999/"
                                    << "invalid port '99999'";
    QTest::newRow("port 65536") << "http://h:65536/"
                                << "invalid port '65536'";
    QTest::newRow("port zero") << "http://h:0/"
                               << "invalid port '0'";
    QTest::newRow("port not a number") << "http://h:80a/"
                                       << "invalid port '80a'";
    QTest::newRow("negative port") << "http://h:-1/"
                                   << "invalid port '-1'";
    QTest::newRow("IPv6 port not a number") << "http://[::1]:http/"
                                            << "invalid port 'http'";
    QTest::newRow("unclosed IPv6 bracket") << "http://[::1/"
                                           << "malformed URL 'http://[::1/'";
    QTest::newRow("junk after IPv6 bracket") << "http://[::1]x/"
                                             << "malformed URL 'http://[::1]x/'";
    QTest::newRow("IPv6 without colons") << "http://[abc]/"
                                         << "malformed URL 'http://[abc]/'";
    QTest::newRow("user info") << "http://user:pw@h/"
                               << "malformed URL 'http://user:pw@h/'";
    // Echoed as typed: a '?' in place of the space would read as a query.
    QTest::newRow("space in host") << "http://ho st/"
                                   << "malformed URL 'http://ho st/'";
    QTest::newRow("space in path")
        << "http://h/a b"
        << "malformed URL 'http://h/a b': a space or control character in the path or query "
           "(write a space as %20)";
    QTest::newRow("newline in path stays one line")
        << "http://h/a\nb"
        << "malformed URL 'http://h/a\\x0Ab': a space or control character in the path or query "
           "(write a space as %20)";
}

void TestHttpProtocol::parseUrlErrors() {
    QFETCH(QString, url);
    QFETCH(QString, error);

    std::string got;
    QVERIFY(!parseHttpUrl(toStd(url), &got).has_value());
    QCOMPARE(QString::fromStdString(got), error);
    // The error argument is optional.
    QVERIFY(!parseHttpUrl(toStd(url), nullptr).has_value());
}

QTEST_GUILESS_MAIN(TestHttpProtocol)
#include "tst_http_protocol.moc"
