#include "engine/local_listener.h"

#include "engine/text_file.h"

#include <charconv>
#include <dirent.h>
#include <string>
#include <unistd.h>

namespace loadscope::engine {

namespace {

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
    auto inode = listeningInode(readTextFile("/proc/net/tcp").value_or(""), port);
    if (!inode)
        inode = listeningInode(readTextFile("/proc/net/tcp6").value_or(""), port);
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
