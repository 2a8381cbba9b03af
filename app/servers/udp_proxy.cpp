#include "app/servers/udp_proxy.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <sys/epoll.h>
#include <unistd.h>
#include <unordered_map>

namespace loadscope::app {

namespace {

constexpr size_t kDatagramBytes = 65536;
constexpr int kEvents = 64;

int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// One client's relay: its address and its own socket to the upstream.
struct Flow {
    sockaddr_storage client{};
    socklen_t clientLength = 0;
    int upstream = -1;
    int64_t activeNs = 0;
};

// The flows of one loop, by client address and by upstream socket.
class FlowTable {
public:
    FlowTable(int epoll, const engine::SocketAddress& upstream)
        : m_epoll(epoll)
        , m_upstream(upstream) {}
    ~FlowTable() {
        for (auto& [key, flow] : m_byClient)
            ::close(flow.upstream);
    }
    FlowTable(const FlowTable&) = delete;
    FlowTable& operator=(const FlowTable&) = delete;

    // The client's flow, opened when new; nullptr when its socket cannot be made.
    Flow* of(const sockaddr_storage& client, socklen_t length, int64_t now) {
        const std::string key(reinterpret_cast<const char*>(&client), length);
        if (const auto found = m_byClient.find(key); found != m_byClient.end())
            return &found->second;
        if (m_byClient.size() >= UdpProxy::kMaxFlows)
            forgetIdlest();
        const int fd = ::socket(m_upstream.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return nullptr;
        epoll_event watched{};
        watched.events = EPOLLIN;
        watched.data.fd = fd;
        if (::connect(fd, m_upstream.data(), m_upstream.length) != 0 ||
            ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &watched) != 0) {
            ::close(fd);
            return nullptr;
        }
        Flow& flow = m_byClient[key];
        flow.client = client;
        flow.clientLength = length;
        flow.upstream = fd;
        flow.activeNs = now;
        m_byUpstream[fd] = key;
        return &flow;
    }
    Flow* ofUpstream(int fd) {
        const auto found = m_byUpstream.find(fd);
        return found == m_byUpstream.end() ? nullptr : &m_byClient.at(found->second);
    }
    void forgetIdle(int64_t now, int64_t idleNs) {
        for (auto it = m_byClient.begin(); it != m_byClient.end();) {
            if (now - it->second.activeNs < idleNs) {
                ++it;
                continue;
            }
            m_byUpstream.erase(it->second.upstream);
            ::close(it->second.upstream);
            it = m_byClient.erase(it);
        }
    }

private:
    void forgetIdlest() {
        auto idlest = m_byClient.begin();
        for (auto it = m_byClient.begin(); it != m_byClient.end(); ++it)
            if (it->second.activeNs < idlest->second.activeNs)
                idlest = it;
        m_byUpstream.erase(idlest->second.upstream);
        ::close(idlest->second.upstream);
        m_byClient.erase(idlest);
    }

    const int m_epoll;
    const engine::SocketAddress& m_upstream;
    std::unordered_map<std::string, Flow> m_byClient;
    std::unordered_map<int, std::string> m_byUpstream;
};

} // namespace

UdpProxy::UdpProxy(UdpProxyConfig config)
    : UdpServer(config)
    , m_upstreamHost(std::move(config.upstreamHost))
    , m_upstreamPort(config.upstreamPort) {}

UdpProxy::~UdpProxy() {
    stop();
}

Result<void> UdpProxy::prepare() {
    std::string problem;
    const auto upstream = engine::resolveAddress(m_upstreamHost, m_upstreamPort, &problem);
    if (!upstream)
        return invalidInput(
            QStringLiteral("cannot resolve the upstream %1: %2")
                .arg(QString::fromStdString(m_upstreamHost), QString::fromStdString(problem)));
    m_upstream = *upstream;
    return {};
}

void UdpProxy::serveSocket(int fd, DatagramHandler*, UdpLoopCounters& counters,
                           const std::atomic<bool>& stopping) {
    const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0)
        return;
    epoll_event listening{};
    listening.events = EPOLLIN;
    listening.data.fd = fd;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &listening);
    const std::unique_ptr<char[]> buffer(new char[kDatagramBytes]);
    const int64_t idleNs = std::chrono::nanoseconds(config().idleTimeout).count();
    int64_t nextExpiryNs = steadyNs() + 1'000'000'000;
    {
        FlowTable flows(epoll, m_upstream);
        epoll_event events[kEvents];
        while (!stopping.load(std::memory_order_acquire)) {
            const int n = ::epoll_wait(epoll, events, kEvents, 200);
            const int64_t now = steadyNs();
            for (int i = 0; i < n; ++i) {
                const int source = events[i].data.fd;
                // Each socket is read until it is dry: level-triggered, it says so again anyway.
                while (!stopping.load(std::memory_order_relaxed)) {
                    sockaddr_storage peer{};
                    socklen_t peerLength = sizeof peer;
                    const ssize_t got =
                        ::recvfrom(source, buffer.get(), kDatagramBytes, MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&peer), &peerLength);
                    if (got < 0)
                        break; // dry, or an ICMP error of the upstream's, which ends nothing
                    if (source == fd) {
                        UdpLoopCounters::bump(counters.datagramsReceived, 1);
                        UdpLoopCounters::bump(counters.bytesReceived, uint64_t(got));
                        Flow* flow = flows.of(peer, peerLength, now);
                        if (!flow || ::send(flow->upstream, buffer.get(), size_t(got),
                                            MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
                            UdpLoopCounters::bump(counters.sendErrors, 1);
                            continue;
                        }
                        flow->activeNs = now;
                        continue;
                    }
                    Flow* flow = flows.ofUpstream(source);
                    if (!flow)
                        break;
                    flow->activeNs = now;
                    if (::sendto(fd, buffer.get(), size_t(got), MSG_DONTWAIT | MSG_NOSIGNAL,
                                 reinterpret_cast<const sockaddr*>(&flow->client),
                                 flow->clientLength) < 0) {
                        UdpLoopCounters::bump(counters.sendErrors, 1);
                        continue;
                    }
                    UdpLoopCounters::bump(counters.datagramsSent, 1);
                    UdpLoopCounters::bump(counters.bytesSent, uint64_t(got));
                }
            }
            if (idleNs > 0 && now >= nextExpiryNs) {
                flows.forgetIdle(now, idleNs);
                nextExpiryNs = now + 1'000'000'000;
            }
        }
    }
    ::close(epoll);
}

} // namespace loadscope::app
