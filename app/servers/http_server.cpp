#include "app/servers/http_server.h"

#include "app/servers/http2_session.h"
#include "app/servers/socket_connection.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <openssl/ssl.h>
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <vector>

namespace loadscope::app {

namespace {

// Enough iovecs per sendmsg() for any realistic pipeline depth without a large stack frame.
constexpr size_t kMaxIov = 64;

bool equalsIgnoringCase(std::string_view text, std::string_view lowerCase) {
    if (text.size() != lowerCase.size())
        return false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        if (c != lowerCase[i])
            return false;
    }
    return true;
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

std::string makeResponse(std::string_view status, std::string_view type, std::string_view body,
                         bool keepAlive, size_t* headLength) {
    std::string head;
    head.append("HTTP/1.1 ").append(status).append("\r\n");
    head.append("Server: loadscope\r\n");
    head.append("Content-Type: ").append(type).append("\r\n");
    head.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    head.append(keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n");
    head.append("\r\n");
    if (headLength)
        *headLength = head.size();
    head.append(body);
    return head;
}

// What one parsed request asks of the connection.
struct RequestHead {
    bool head = false;          // HEAD: headers only
    bool keepAlive = true;      // after the version and Connection header are weighed
    bool chunkedBody = false;   // a body whose end we do not look for: answer, then close
    uint64_t contentLength = 0; // body bytes to skip before the next request
};

enum class ParseStatus { Incomplete, Complete, Malformed };

// Parses one request head at the start of `data`; on Complete sets `length` to its size including
// the blank line. Bare LF line ends are accepted as well as CRLF.
ParseStatus parseRequestHead(std::string_view data, RequestHead& request, size_t& length) {
    size_t pos = 0;
    bool firstLine = true;
    bool http10 = false;
    bool sawClose = false;
    bool sawKeepAlive = false;
    bool sawLength = false;
    while (true) {
        const void* found = std::memchr(data.data() + pos, '\n', data.size() - pos);
        if (!found)
            return ParseStatus::Incomplete;
        const size_t end = size_t(static_cast<const char*>(found) - data.data());
        std::string_view line = data.substr(pos, end - pos);
        pos = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (firstLine) {
            firstLine = false;
            // METHOD SP TARGET SP HTTP/x.y
            const size_t methodEnd = line.find(' ');
            const size_t versionStart = line.rfind(' ');
            if (methodEnd == 0 || methodEnd == std::string_view::npos || versionStart == methodEnd)
                return ParseStatus::Malformed;
            const std::string_view version = line.substr(versionStart + 1);
            if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
                version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
                return ParseStatus::Malformed;
            http10 = version[5] == '1' && version[7] == '0';
            if (version[5] == '0')
                return ParseStatus::Malformed;
            request.head = line.substr(0, methodEnd) == "HEAD";
            continue;
        }
        if (line.empty())
            break;
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return ParseStatus::Malformed;
        const std::string_view name = line.substr(0, colon);
        const std::string_view value = trimmed(line.substr(colon + 1));
        if (equalsIgnoringCase(name, "connection")) {
            // A token list: "keep-alive", "close", "Upgrade, close", ...
            size_t start = 0;
            while (start <= value.size()) {
                size_t comma = value.find(',', start);
                if (comma == std::string_view::npos)
                    comma = value.size();
                const std::string_view token = trimmed(value.substr(start, comma - start));
                sawClose = sawClose || equalsIgnoringCase(token, "close");
                sawKeepAlive = sawKeepAlive || equalsIgnoringCase(token, "keep-alive");
                start = comma + 1;
            }
        } else if (equalsIgnoringCase(name, "content-length")) {
            if (value.empty() || value.size() > 18 || sawLength)
                return ParseStatus::Malformed;
            uint64_t number = 0;
            for (const char c : value) {
                if (c < '0' || c > '9')
                    return ParseStatus::Malformed;
                number = number * 10 + uint64_t(c - '0');
            }
            sawLength = true;
            request.contentLength = number;
        } else if (equalsIgnoringCase(name, "transfer-encoding")) {
            request.chunkedBody = true;
        }
    }
    request.keepAlive = !sawClose && !request.chunkedBody && (!http10 || sawKeepAlive);
    length = pos;
    return ParseStatus::Complete;
}

} // namespace

// One client. Reads land in the loop's scratch buffer; only an incomplete request head is kept
// (m_carry). Responses are queued as pointers into the server's prebuilt strings, never copied.
// While output is pending the connection stops reading, which bounds the queue by one read's
// worth of pipelined requests. An HTTP/2 connection (the client preface on a cleartext one that
// allows it, ALPN "h2" on TLS) hands every byte to its Http2Session instead.
class HttpConnection final : public SocketConnection {
public:
    HttpConnection(const HttpServer& server, ServerLoop& loop, int fd, SSL* tls, bool http2)
        : SocketConnection(loop, fd, tls)
        , m_server(server)
        , m_ssl(tls)
        , m_sniffing(http2 && !tls) {
        headStarted(loop.now()); // the header timeout runs from the accept
    }

    bool onEvents(int, uint32_t events) override {
        if (handshaking()) {
            // The header timeout covers the handshake too: a client that
            // stalls in it is closed as one that stalls in its head.
            if (const std::optional<bool> keepOpen = continueHandshake())
                return *keepOpen;
            // ALPN chose h2 only where the server offered it (TlsServerContext).
            if (TlsServerContext::negotiatedHttp2(m_ssl))
                return startHttp2({});
            // The request may be in the socket already; level-triggered, it reports it.
            return updateInterest(EPOLLIN);
        }
        if (m_http2)
            return serveHttp2(events);
        if ((events & EPOLLOUT) && !flush())
            return false;
        if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && watching(EPOLLIN) && !readAndServe())
            return false;
        if (m_http2)
            return true; // the bytes read were the HTTP/2 preface; serveHttp2 chose what to watch
        if (m_queue.empty() && m_closeAfterFlush) {
            closeWrite();
            return false;
        }
        return updateInterest(!m_queue.empty()    ? uint32_t(EPOLLOUT)
                              : m_closeAfterFlush ? 0u
                                                  : uint32_t(EPOLLIN));
    }

private:
    struct Chunk {
        const char* data;
        size_t size;
    };

    bool readAndServe() {
        const SocketRead read = readSocket();
        if (read.status == SocketRead::Status::Closed) {
            // The client may half-close after its last request and still read the answers.
            m_closeAfterFlush = true;
            return flush();
        }
        if (read.status != SocketRead::Status::Data)
            return read.keepOpen();
        if (m_sniffing) {
            m_carry.append(read.bytes.data(), read.bytes.size());
            const std::string_view preface = Http2Session::kClientPreface;
            const size_t compared = std::min(m_carry.size(), preface.size());
            if (std::string_view(m_carry).substr(0, compared) == preface.substr(0, compared)) {
                if (m_carry.size() < preface.size())
                    return true; // the preface so far: wait for the rest
                const bool open = startHttp2(m_carry);
                m_carry.clear();
                return open;
            }
            // Not HTTP/2: what was read begins the first HTTP/1.1 request.
            m_sniffing = false;
            const size_t used = serve(m_carry);
            m_carry.erase(0, used);
        } else if (m_carry.empty()) {
            const std::string_view data(read.bytes.data(), read.bytes.size());
            const size_t used = serve(data);
            if (used < data.size())
                m_carry.assign(data.substr(used));
        } else {
            m_carry.append(read.bytes.data(), read.bytes.size());
            const size_t used = serve(m_carry);
            m_carry.erase(0, used);
        }
        if (m_closeAfterFlush)
            m_carry.clear();
        else if (m_carry.size() > HttpServer::kMaxHeadSize)
            badRequest();
        if (!m_carry.empty())
            headStarted(m_loop.now()); // part of a head: from its first byte, not from now on
        return flush();
    }

    // Queues the responses for every complete request in `data`; returns the bytes used.
    size_t serve(std::string_view data) {
        size_t pos = 0;
        uint64_t answered = 0;
        while (pos < data.size() && !m_closeAfterFlush) {
            if (m_bodyLeft > 0) {
                const size_t skip = size_t(std::min<uint64_t>(m_bodyLeft, data.size() - pos));
                pos += skip;
                m_bodyLeft -= skip;
                continue;
            }
            // Stray line ends between requests are allowed and ignored.
            if (data[pos] == '\r' || data[pos] == '\n') {
                ++pos;
                continue;
            }
            RequestHead request;
            size_t length = 0;
            const ParseStatus status = parseRequestHead(data.substr(pos), request, length);
            if (status == ParseStatus::Incomplete)
                break;
            if (status == ParseStatus::Malformed || length > HttpServer::kMaxHeadSize) {
                badRequest();
                break;
            }
            pos += length;
            headCompleted();
            m_bodyLeft = request.contentLength;
            const std::string& response =
                request.keepAlive ? m_server.m_keepAlive : m_server.m_close;
            const size_t size = request.head ? (request.keepAlive ? m_server.m_headLength
                                                                  : m_server.m_closeHeadLength)
                                             : response.size();
            m_queue.push_back({response.data(), size});
            ++answered;
            if (!request.keepAlive)
                m_closeAfterFlush = true;
        }
        m_loop.countRequests(answered);
        return pos;
    }

    // From now on the connection speaks HTTP/2; `received` is what the client sent so far.
    bool startHttp2(std::string_view received) {
        m_sniffing = false;
        m_http2 = Http2Session::create(m_loop, m_server.document());
        if (!m_http2) {
            m_loop.countError();
            return false;
        }
        headCompleted(); // streams are not heads: the idle timeout watches an HTTP/2 connection
        if (!received.empty())
            m_http2->receive(received);
        return flushHttp2();
    }

    bool serveHttp2(uint32_t events) {
        if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && watching(EPOLLIN)) {
            const SocketRead read = readSocket();
            if (read.status == SocketRead::Status::Data)
                m_http2->receive(read.bytes);
            else if (!read.keepOpen())
                return false; // closed or broken: an HTTP/2 client reads nothing after its FIN
        }
        return flushHttp2();
    }

    // Writes what the session has to send until it has nothing or the socket is full; reads
    // again only once all of it went, as HTTP/1.1 responses do.
    bool flushHttp2() {
        for (std::string_view output = m_http2->output(); !output.empty();
             output = m_http2->output()) {
            const ssize_t sent = writeSocket(output.data(), output.size());
            if (sent < 0) {
                if (!wouldBlock())
                    return false;
                return updateInterest(EPOLLOUT);
            }
            m_loop.countSent(uint64_t(sent));
            m_http2->sent(size_t(sent));
            if (size_t(sent) < output.size())
                return updateInterest(EPOLLOUT);
        }
        if (m_http2->finished()) {
            closeWrite();
            return false;
        }
        return updateInterest(EPOLLIN);
    }

    void badRequest() {
        m_queue.push_back({m_server.m_badRequest.data(), m_server.m_badRequest.size()});
        m_closeAfterFlush = true;
        m_carry.clear();
        m_loop.countError();
    }

    // Writes queued responses until done or the socket is full; false on a write error.
    bool flush() {
        while (m_head < m_queue.size()) {
            ssize_t sent;
            if (tls() || m_head + 1 == m_queue.size()) {
                const Chunk& chunk = m_queue[m_head];
                sent = writeSocket(chunk.data + m_offset, chunk.size - m_offset);
            } else {
                iovec iov[kMaxIov];
                size_t count = 0;
                for (size_t i = m_head; i < m_queue.size() && count < kMaxIov; ++i, ++count) {
                    const size_t skip = i == m_head ? m_offset : 0;
                    iov[count].iov_base = const_cast<char*>(m_queue[i].data + skip);
                    iov[count].iov_len = m_queue[i].size - skip;
                }
                msghdr message{};
                message.msg_iov = iov;
                message.msg_iovlen = count;
                sent = sendmsg(m_fd, &message, MSG_NOSIGNAL);
            }
            if (sent < 0) {
                if (errno == EINTR)
                    continue;
                return wouldBlock();
            }
            m_loop.countSent(uint64_t(sent));
            size_t left = size_t(sent);
            while (left > 0) {
                const size_t rest = m_queue[m_head].size - m_offset;
                if (left < rest) {
                    m_offset += left;
                    break;
                }
                left -= rest;
                m_offset = 0;
                ++m_head;
            }
            while (m_head < m_queue.size() && m_queue[m_head].size == m_offset) {
                m_offset = 0;
                ++m_head;
            }
        }
        m_queue.clear();
        m_head = 0;
        m_offset = 0;
        return true;
    }

    const HttpServer& m_server;
    SSL* m_ssl = nullptr;                  // HTTPS: owned by tls(); for the ALPN choice
    std::unique_ptr<Http2Session> m_http2; // set once the connection speaks HTTP/2
    bool m_sniffing = false; // cleartext with HTTP/2 allowed: is the first request a preface?
    bool m_closeAfterFlush = false;
    uint64_t m_bodyLeft = 0;
    std::string m_carry;
    std::vector<Chunk> m_queue;
    size_t m_head = 0;   // first unsent chunk
    size_t m_offset = 0; // bytes of it already sent
};

HttpServer::HttpServer(HttpServerConfig config)
    : TcpServer(config)
    , m_documentSize(config.documentSize)
    , m_httpConfig(config) {
    if (m_documentSize > kMaxDocumentSize)
        return; // prepare() refuses to start
    const std::string document = makeDocument(m_documentSize);
    m_keepAlive = makeResponse("200 OK", "text/html", document, true, &m_headLength);
    m_close = makeResponse("200 OK", "text/html", document, false, &m_closeHeadLength);
    m_badRequest = makeResponse("400 Bad Request", "text/plain", "Bad Request\n", false, nullptr);
}

HttpServer::~HttpServer() {
    stop();
}

Result<void> HttpServer::prepare() {
    if (auto tls = prepareTls(m_httpConfig, m_httpConfig.http2, m_tls); !tls)
        return tls;
    if (m_documentSize <= kMaxDocumentSize)
        return {};
    return invalidInput(QStringLiteral("the document size %1 is larger than %2 bytes")
                            .arg(m_documentSize)
                            .arg(kMaxDocumentSize));
}

std::unique_ptr<ServerConnection> HttpServer::createConnection(ServerLoop& loop, int fd) {
    const std::optional<SSL*> tls = acceptTls(m_tls.get(), loop, fd);
    if (!tls)
        return nullptr;
    return openConnection<HttpConnection>(*this, loop, fd, *tls, m_httpConfig.http2);
}

std::string HttpServer::makeDocument(size_t size) {
    static constexpr std::string_view head =
        "<!DOCTYPE html>\n<html><head><title>loadscope</title></head><body>\n<p>";
    static constexpr std::string_view tail = "</p>\n</body></html>\n";
    static constexpr std::string_view filler =
        "Loadscope test document, served from memory by the embedded HTTP server.\n";
    std::string document;
    document.reserve(size);
    if (size < head.size() + tail.size()) {
        while (document.size() < size)
            document.append(filler.substr(0, std::min(filler.size(), size - document.size())));
        return document;
    }
    document.append(head);
    const size_t body = size - head.size() - tail.size();
    while (document.size() - head.size() < body)
        document.append(
            filler.substr(0, std::min(filler.size(), body - (document.size() - head.size()))));
    document.append(tail);
    return document;
}

} // namespace loadscope::app
