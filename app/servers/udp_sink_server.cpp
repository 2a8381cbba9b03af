#include "app/servers/udp_sink_server.h"

#include "engine/udp_datagram.h"

#include <array>
#include <unordered_map>

namespace loadscope::app {

namespace {

namespace udp = engine::udp;

// One stream's count, and which of the last kWindow sequences below its highest arrived.
struct StreamCount {
    static constexpr uint64_t kWindow = 1024;

    udp::SinkCounts counts;
    uint64_t highest = 0;
    bool any = false;
    uint64_t lastSeen = 0; // the handler's datagram count when this stream last had one
    std::array<uint64_t, kWindow / 64> seen{}; // bit (sequence % kWindow)

    bool bit(uint64_t sequence) const {
        return (seen[(sequence % kWindow) / 64] >> (sequence % 64)) & 1;
    }
    void set(uint64_t sequence, bool on) {
        uint64_t& word = seen[(sequence % kWindow) / 64];
        const uint64_t mask = uint64_t(1) << (sequence % 64);
        word = on ? word | mask : word & ~mask;
    }

    void add(uint64_t sequence, size_t bytes) {
        ++counts.datagrams;
        counts.bytes += bytes;
        if (!any || sequence > highest) {
            // The window moves up: the sequences it uncovers have not arrived yet.
            const uint64_t from = any ? highest + 1 : sequence;
            if (sequence - from >= kWindow)
                seen.fill(0);
            else
                for (uint64_t s = from; s < sequence; ++s)
                    set(s, false);
            set(sequence, true);
            highest = sequence;
            any = true;
            return;
        }
        if (highest - sequence >= kWindow) {
            ++counts.outOfOrder; // too old to tell whether it came before
            return;
        }
        if (bit(sequence)) {
            ++counts.duplicates;
            return;
        }
        set(sequence, true);
        ++counts.outOfOrder;
    }
};

class SinkHandler final : public DatagramHandler {
public:
    void onDatagram(size_t slot, std::string_view datagram, DatagramReplies& replies,
                    bool& countQuery) override {
        ++m_datagrams;
        if (const auto header = udp::readStreamHeader(datagram)) {
            StreamCount& stream = streamOf(header->streamId);
            stream.add(header->sequence, datagram.size());
            stream.lastSeen = m_datagrams;
            return;
        }
        const auto query = udp::readCountQuery(datagram);
        if (!query)
            return; // a message without the header: in the server's totals only
        countQuery = true;
        const auto found = m_streams.find(query->streamId);
        udp::CountAnswer answer{*query, found == m_streams.end() ? udp::SinkCounts{}
                                                                 : found->second.counts};
        if (char* out = replies.addOwn(slot, udp::kCountBytes))
            udp::writeCountAnswer(out, answer);
    }

private:
    StreamCount& streamOf(uint32_t id) {
        const auto found = m_streams.find(id);
        if (found != m_streams.end())
            return found->second;
        if (m_streams.size() >= UdpSinkServer::kMaxStreams) {
            auto oldest = m_streams.begin();
            for (auto it = m_streams.begin(); it != m_streams.end(); ++it)
                if (it->second.lastSeen < oldest->second.lastSeen)
                    oldest = it;
            m_streams.erase(oldest);
        }
        return m_streams[id];
    }

    std::unordered_map<uint32_t, StreamCount> m_streams;
    uint64_t m_datagrams = 0;
};

} // namespace

UdpSinkServer::UdpSinkServer(ServerConfig config)
    : UdpServer(std::move(config)) {}

UdpSinkServer::~UdpSinkServer() {
    stop();
}

std::unique_ptr<DatagramHandler> UdpSinkServer::createHandler() {
    return std::make_unique<SinkHandler>();
}

} // namespace loadscope::app
