#include "engine/local_listener.h"

#include "engine/text_file.h"

#include <arpa/inet.h>
#include <charconv>
#include <dirent.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loadscope::engine {

namespace {

struct Listener {
    uint16_t port = 0;
    uint64_t inode = 0;
};

// The listening TCP sockets of `family`, from the kernel's socket
// diagnostics; nullopt when netlink cannot be asked. Asked for listeners
// alone, the kernel walks its listening table only, where /proc/net/tcp
// prints every socket: with the 11 000 TIME_WAIT sockets a few benchmark
// runs leave behind, reading it took 18 ms of a run's client CPU.
std::optional<std::vector<Listener>> diagListeners(int family) {
    const int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return std::nullopt;
    struct {
        nlmsghdr header;
        inet_diag_req_v2 request;
    } ask{};
    ask.header.nlmsg_len = sizeof ask;
    ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    ask.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    ask.request.sdiag_family = uint8_t(family);
    ask.request.sdiag_protocol = IPPROTO_TCP;
    ask.request.idiag_states = 1u << TCP_LISTEN;
    if (::send(fd, &ask, sizeof ask, 0) != ssize_t(sizeof ask)) {
        ::close(fd);
        return std::nullopt;
    }
    std::vector<Listener> listeners;
    bool done = false;
    bool failed = false;
    alignas(nlmsghdr) char buffer[16384];
    // Bounded: a dump of listeners is a read or two, ended by NLMSG_DONE.
    for (int reads = 0; reads < 1000 && !done && !failed; ++reads) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
            failed = true;
            break;
        }
        size_t at = 0;
        while (at + sizeof(nlmsghdr) <= size_t(n)) {
            const auto* message = reinterpret_cast<const nlmsghdr*>(buffer + at);
            failed = message->nlmsg_len < sizeof(nlmsghdr) || at + message->nlmsg_len > size_t(n) ||
                     message->nlmsg_type == NLMSG_ERROR;
            done = message->nlmsg_type == NLMSG_DONE;
            if (failed || done)
                break;
            if (message->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
                message->nlmsg_len >= NLMSG_LENGTH(sizeof(inet_diag_msg))) {
                const auto* socket =
                    reinterpret_cast<const inet_diag_msg*>(buffer + at + NLMSG_HDRLEN);
                listeners.push_back({ntohs(socket->id.idiag_sport), socket->idiag_inode});
            }
            at += NLMSG_ALIGN(message->nlmsg_len);
        }
    }
    ::close(fd);
    if (!done)
        return std::nullopt;
    return listeners;
}

std::optional<uint64_t> listenerInode(uint16_t port) {
    for (const int family : {AF_INET, AF_INET6}) {
        const auto listeners = diagListeners(family);
        if (!listeners) { // no netlink here: the text tables say the same, slower
            auto inode = listeningInode(readTextFile("/proc/net/tcp").value_or(""), port);
            return inode ? inode
                         : listeningInode(readTextFile("/proc/net/tcp6").value_or(""), port);
        }
        for (const Listener& listener : *listeners)
            if (listener.port == port && listener.inode != 0)
                return listener.inode;
    }
    return std::nullopt;
}

// Whether /proc/PID/fd of `pid` holds the socket "socket:[inode]".
bool holdsSocket(const std::string& pid, const std::string& link) {
    const std::string dir = "/proc/" + pid + "/fd";
    DIR* fds = opendir(dir.c_str());
    if (!fds)
        return false;
    bool found = false;
    char target[64];
    while (const dirent* entry = readdir(fds)) {
        if (entry->d_name[0] == '.')
            continue;
        const std::string path = dir + "/" + entry->d_name;
        const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
        if (n > 0 && std::string_view(target, size_t(n)) == link) {
            found = true;
            break;
        }
    }
    closedir(fds);
    return found;
}

} // namespace

std::optional<uint64_t> listeningInode(std::string_view text, uint16_t port) {
    // "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout
    // inode" "   0: 0100007F:4E20 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0
    // 12345 ..."
    while (!text.empty()) {
        const size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        std::string_view fields[10];
        size_t count = 0;
        while (count < 10) {
            const size_t start = line.find_first_not_of(' ');
            if (start == std::string_view::npos)
                break;
            line = line.substr(start);
            const size_t end = line.find(' ');
            fields[count++] = line.substr(0, end);
            line = end == std::string_view::npos ? std::string_view() : line.substr(end);
        }
        if (count < 10 || fields[3] != "0A") // 0A: TCP_LISTEN
            continue;
        const size_t colon = fields[1].rfind(':');
        if (colon == std::string_view::npos)
            continue;
        const std::string_view portHex = fields[1].substr(colon + 1);
        unsigned value = 0;
        if (std::from_chars(portHex.data(), portHex.data() + portHex.size(), value, 16).ec !=
                std::errc() ||
            value != port)
            continue;
        uint64_t inode = 0;
        if (std::from_chars(fields[9].data(), fields[9].data() + fields[9].size(), inode).ec ==
                std::errc() &&
            inode != 0)
            return inode;
    }
    return std::nullopt;
}

std::optional<int> localListenerPid(uint16_t port) {
    const auto inode = listenerInode(port);
    if (!inode)
        return std::nullopt;
    const std::string link = "socket:[" + std::to_string(*inode) + "]";
    const int self = int(getpid());
    DIR* proc = opendir("/proc");
    if (!proc)
        return std::nullopt;
    std::optional<int> found;
    while (const dirent* entry = readdir(proc)) {
        int pid = 0;
        const std::string_view name(entry->d_name);
        if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc() ||
            pid == self)
            continue;
        if (holdsSocket(std::string(name), link)) {
            found = pid;
            break;
        }
    }
    closedir(proc);
    return found;
}

} // namespace loadscope::engine
