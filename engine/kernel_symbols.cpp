#include "engine/kernel_symbols.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <numeric>
#include <unistd.h>

namespace loadscope::engine {

namespace {

// The whole of what `fd` gives from its start; empty on failure.
std::string readAll(int fd) {
    std::string text;
    if (lseek(fd, 0, SEEK_SET) < 0)
        return text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        text.append(buffer, size_t(got));
    }
    return text;
}

std::string_view withoutSuffix(std::string_view name) {
    // "tcp_ack.isra.0", "nf_hook_slow.cold": the function's own name is before the dot.
    const size_t dot = name.find('.');
    return dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
}

} // namespace

KernelSymbols KernelSymbols::parse(std::string_view text) {
    struct Entry {
        uint64_t start;
        std::string_view name;
    };
    std::vector<Entry> entries;
    bool anyAddress = false;
    bool anySymbol = false;
    while (!text.empty()) {
        const size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        uint64_t address = 0;
        const auto [afterAddress, error] =
            std::from_chars(line.data(), line.data() + line.size(), address, 16);
        if (error != std::errc() || afterAddress + 3 > line.data() + line.size() ||
            afterAddress[0] != ' ' || afterAddress[2] != ' ')
            continue;
        const char type = afterAddress[1];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W')
            continue;
        anySymbol = true;
        std::string_view name = line.substr(size_t(afterAddress + 3 - line.data()));
        name = name.substr(0, name.find_first_of(" \t")); // a module's "\t[name]" follows
        if (address == 0 || name.empty())
            continue;
        anyAddress = true;
        entries.push_back({address, withoutSuffix(name)});
    }
    KernelSymbols symbols;
    symbols.m_hidden = anySymbol && !anyAddress;
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.start < b.start; });
    symbols.m_starts.reserve(entries.size());
    for (const Entry& entry : entries) {
        // Aliases share an address (_stext, _text): the first listed names it.
        if (!symbols.m_starts.empty() && symbols.m_starts.back() == entry.start)
            continue;
        symbols.m_starts.push_back(entry.start);
        symbols.m_names.push_back(uint32_t(symbols.m_pool.size()));
        const size_t length = std::min<size_t>(entry.name.size(), 0xffff);
        symbols.m_lengths.push_back(uint16_t(length));
        symbols.m_pool.append(entry.name.substr(0, length));
    }
    return symbols;
}

std::shared_ptr<const KernelSymbols> KernelSymbols::machine() {
    static std::mutex mutex;
    static std::shared_ptr<const KernelSymbols> loaded;
    std::lock_guard lock(mutex);
    if (loaded)
        return loaded;
    int fd = -1;
    bool own = false;
    if (const char* handed = std::getenv("LOADSCOPE_PROFILE_KALLSYMS_FD")) {
        int value = -1;
        const std::string_view text(handed);
        if (std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc() &&
            value > 2 && fcntl(value, F_GETFD) >= 0)
            fd = value;
    }
    if (fd < 0) {
        fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
        own = true;
    }
    const std::string text = fd >= 0 ? readAll(fd) : std::string();
    if (own && fd >= 0)
        close(fd);
    loaded = std::make_shared<const KernelSymbols>(parse(text));
    return loaded;
}

std::string_view KernelSymbols::lookup(uint64_t address) const {
    const auto after = std::upper_bound(m_starts.begin(), m_starts.end(), address);
    if (after == m_starts.begin())
        return {};
    const size_t i = size_t(after - m_starts.begin()) - 1;
    return std::string_view(m_pool).substr(m_names[i], m_lengths[i]);
}

} // namespace loadscope::engine
