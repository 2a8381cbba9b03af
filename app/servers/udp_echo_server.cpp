#include "app/servers/udp_echo_server.h"

#include "engine/udp_datagram.h"

#include <algorithm>

namespace loadscope::app {

namespace {

class EchoHandler final : public DatagramHandler {
public:
    EchoHandler(std::optional<size_t> responseSize, std::string_view filler)
        : m_responseSize(responseSize)
        , m_filler(filler) {}

    void onDatagram(size_t slot, std::string_view datagram, DatagramReplies& replies,
                    bool&) override {
        if (!m_responseSize) {
            replies.add(slot, datagram);
            return;
        }
        const size_t mirrored = std::min(datagram.size(), *m_responseSize);
        replies.add(slot, datagram.substr(0, mirrored),
                    m_filler.substr(0, *m_responseSize - mirrored));
    }

private:
    const std::optional<size_t> m_responseSize;
    const std::string_view m_filler;
};

} // namespace

UdpEchoServer::UdpEchoServer(UdpEchoServerConfig config)
    : UdpServer(config)
    , m_responseSize(config.responseSize)
    , m_filler(std::min<size_t>(config.responseSize.value_or(0), engine::udp::kMaxDatagramBytes),
               'r') {}

UdpEchoServer::~UdpEchoServer() {
    stop();
}

Result<void> UdpEchoServer::prepare() {
    if (!m_responseSize ||
        (*m_responseSize >= 1 && *m_responseSize <= engine::udp::kMaxDatagramBytes))
        return {};
    return invalidInput(QStringLiteral("the response size must be from 1 to %1 bytes (a UDP "
                                       "datagram)")
                            .arg(engine::udp::kMaxDatagramBytes));
}

std::unique_ptr<DatagramHandler> UdpEchoServer::createHandler() {
    return std::make_unique<EchoHandler>(m_responseSize, m_filler);
}

} // namespace loadscope::app
