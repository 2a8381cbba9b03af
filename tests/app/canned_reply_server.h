#pragma once

#include <QByteArray>
#include <atomic>
#include <cstdint>
#include <thread>

namespace loadscope::testing {

// A stand-in peer for fault tests, on 127.0.0.1 and a free port: it answers
// every request it receives with the same canned bytes, and optionally closes
// the connection right after. A request is whatever ends with `delimiter`: a
// line for memcached gets ("get key\r\n"), the byte 'A' for one-byte TCP_RR
// requests. Runs on its own thread until destroyed.
class CannedReplyServer {
public:
    CannedReplyServer(QByteArray reply, bool closeAfterReply, char delimiter = '\n');
    ~CannedReplyServer();
    CannedReplyServer(const CannedReplyServer&) = delete;
    CannedReplyServer& operator=(const CannedReplyServer&) = delete;

    bool isRunning() const { return m_port != 0; }
    quint16 port() const { return m_port; }
    uint64_t requestsAnswered() const { return m_requests.load(); }
    uint64_t connectionsAccepted() const { return m_connections.load(); }

private:
    void serve();

    QByteArray m_reply;
    bool m_closeAfterReply;
    char m_delimiter;
    int m_listenFd = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<uint64_t> m_requests{0};
    std::atomic<uint64_t> m_connections{0};
    std::thread m_thread;
};

} // namespace loadscope::testing
