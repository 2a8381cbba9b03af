#include "http2_test_server.h"

#include "loopback_listener.h"

#include <cstring>
#include <memory>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

namespace {

struct Peer {
    int fd = -1;
    nghttp2_session* session = nullptr;
    Http2TestServer::Mode mode;
    size_t bodyBytes = 0;
    int64_t slowNs = 0;
    std::atomic<uint64_t>* requests = nullptr;
    std::string body;
    std::string length;
    struct Due {
        int32_t stream;
        int64_t atNs;
    };
    std::vector<Due> due;
    bool garbageSent = false;
    bool closing = false;
    bool shutDown = false;
    int served = 0;
    int32_t lastAnswered = 0;

    ~Peer() {
        if (session)
            nghttp2_session_del(session);
        if (fd >= 0)
            ::close(fd);
    }
};

ssize_t readBody(nghttp2_session*, int32_t, uint8_t* buffer, size_t length, uint32_t* flags,
                 nghttp2_data_source* source, void* user) {
    auto& peer = *static_cast<Peer*>(user);
    auto& offset = *static_cast<size_t*>(source->ptr);
    const size_t n = std::min(length, peer.body.size() - offset);
    std::memcpy(buffer, peer.body.data() + offset, n);
    offset += n;
    if (offset == peer.body.size()) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        delete static_cast<size_t*>(source->ptr);
    }
    return ssize_t(n);
}

nghttp2_nv field(std::string_view name, std::string_view value) {
    const auto bytes = [](std::string_view text) {
        return reinterpret_cast<uint8_t*>(const_cast<char*>(text.data()));
    };
    return {bytes(name), bytes(value), name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
}

void respond(Peer& peer, int32_t stream) {
    nghttp2_nv fields[] = {field(":status", "200"), field("server", "h2-test"),
                           field("content-length", peer.length)};
    nghttp2_data_provider provider{};
    provider.source.ptr = new size_t(0);
    provider.read_callback = readBody;
    nghttp2_submit_response(peer.session, stream, fields, 3, &provider);
}

int frameReceived(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    auto& peer = *static_cast<Peer*>(user);
    const bool requestEnded =
        (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (!requestEnded)
        return 0;
    ++*peer.requests;
    const int32_t stream = frame->hd.stream_id;
    switch (peer.mode) {
    case Http2TestServer::Mode::Answer:
    case Http2TestServer::Mode::AnswerSlow:
    case Http2TestServer::Mode::ZeroWindow: {
        const bool slow =
            peer.mode == Http2TestServer::Mode::AnswerSlow || (stream / 2) % 2 == 0; // 1, 5, 9, ...
        peer.due.push_back({stream, monotonicNowNs() + (slow ? peer.slowNs : 0)});
        break;
    }
    case Http2TestServer::Mode::GoawayAfterTwo:
        if (++peer.served <= 2) {
            peer.due.push_back({stream, monotonicNowNs()});
            peer.lastAnswered = stream;
        } else if (!peer.closing) {
            nghttp2_submit_goaway(session, NGHTTP2_FLAG_NONE, peer.lastAnswered, NGHTTP2_NO_ERROR,
                                  nullptr, 0);
            peer.closing = true;
        }
        break;
    case Http2TestServer::Mode::Goaway:
        nghttp2_submit_goaway(session, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, nullptr, 0);
        peer.closing = true;
        break;
    case Http2TestServer::Mode::RstStream:
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_INTERNAL_ERROR);
        break;
    case Http2TestServer::Mode::Garbage:
        break;
    }
    return 0;
}

std::unique_ptr<Peer> newPeer(int fd, Http2TestServer::Mode mode, size_t bodyBytes, int64_t slowNs,
                              uint32_t maxStreams, std::atomic<uint64_t>* requests) {
    auto peer = std::make_unique<Peer>();
    peer->fd = fd;
    peer->mode = mode;
    peer->slowNs = slowNs;
    peer->requests = requests;
    peer->body.assign(bodyBytes, 'x');
    peer->length = std::to_string(bodyBytes);
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frameReceived);
    nghttp2_session_server_new(&peer->session, callbacks, peer.get());
    nghttp2_session_callbacks_del(callbacks);
    std::vector<nghttp2_settings_entry> settings{
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, maxStreams}};
    if (mode == Http2TestServer::Mode::ZeroWindow)
        settings.push_back({NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0});
    nghttp2_submit_settings(peer->session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
    return peer;
}

// Writes what the session has to send; false when the peer is gone.
bool writeOut(Peer& peer) {
    for (;;) {
        const uint8_t* bytes = nullptr;
        const ssize_t n = nghttp2_session_mem_send(peer.session, &bytes);
        if (n <= 0)
            break;
        if (::send(peer.fd, bytes, size_t(n), MSG_NOSIGNAL) != n)
            return false;
    }
    if (peer.mode == Http2TestServer::Mode::Garbage && !peer.garbageSent) {
        // After the SETTINGS above: a frame header of a 4.7 MB frame, too large.
        static const char garbage[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        peer.garbageSent = true;
        ::send(peer.fd, garbage, sizeof garbage - 1, MSG_NOSIGNAL);
    }
    return true;
}

} // namespace

Http2TestServer::Http2TestServer(Mode mode, size_t bodyBytes, std::chrono::milliseconds slowDelay,
                                 uint32_t maxStreams)
    : m_mode(mode)
    , m_bodyBytes(bodyBytes)
    , m_slowDelay(slowDelay)
    , m_maxStreams(maxStreams) {
    m_listener = listenOnLoopback(0, 64, m_port);
    if (m_listener < 0) {
        m_port = 0;
        return;
    }
    m_thread = std::thread([this] { serve(); });
}

Http2TestServer::~Http2TestServer() {
    m_stop = true;
    if (m_thread.joinable())
        m_thread.join();
    if (m_listener >= 0)
        ::close(m_listener);
}

void Http2TestServer::serve() {
    std::vector<std::unique_ptr<Peer>> peers;
    const int64_t slowNs = int64_t(m_slowDelay.count()) * 1'000'000;
    while (!m_stop) {
        std::vector<pollfd> fds{{m_listener, POLLIN, 0}};
        for (auto& p : peers)
            fds.push_back({p->fd, POLLIN, 0});
        ::poll(fds.data(), fds.size(), 5); // a short wait also serves the delays
        // The peers polled, then the one accepted now (which has no revents yet).
        std::vector<short> events;
        for (size_t i = 1; i < fds.size(); ++i)
            events.push_back(fds[i].revents);
        if (fds[0].revents & POLLIN) {
            const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                ++m_connections;
                peers.push_back(
                    newPeer(fd, m_mode, m_bodyBytes, slowNs, m_maxStreams, &m_requests));
                events.push_back(0);
            }
        }
        for (size_t i = 0; i < peers.size(); ++i) {
            Peer& peer = *peers[i];
            bool alive = true;
            if (events[i] & (POLLIN | POLLHUP | POLLERR)) {
                char buffer[16384];
                const ssize_t n = ::recv(peer.fd, buffer, sizeof buffer, 0);
                alive = n > 0 &&
                        nghttp2_session_mem_recv(peer.session, reinterpret_cast<uint8_t*>(buffer),
                                                 size_t(n)) >= 0;
            }
            const int64_t now = monotonicNowNs();
            for (size_t d = 0; d < peer.due.size();) {
                if (peer.due[d].atNs <= now) {
                    respond(peer, peer.due[d].stream);
                    peer.due.erase(peer.due.begin() + std::ptrdiff_t(d));
                } else {
                    ++d;
                }
            }
            alive = alive && writeOut(peer);
            if (peer.closing && !peer.shutDown && !nghttp2_session_want_write(peer.session)) {
                // A FIN, not a close: a close with the client's last bytes
                // unread would reset the connection, and the reset could
                // overtake the GOAWAY.
                ::shutdown(peer.fd, SHUT_WR);
                peer.shutDown = true;
            }
            if (!alive) {
                peers.erase(peers.begin() + std::ptrdiff_t(i));
                events.erase(events.begin() + std::ptrdiff_t(i));
                --i;
            }
        }
    }
}

} // namespace loadscope::testing
