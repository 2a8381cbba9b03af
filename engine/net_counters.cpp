#include "engine/net_counters.h"

#include "engine/text_file.h"

#include <algorithm>
#include <charconv>
#include <sys/stat.h>

namespace loadscope::engine {

namespace {

// The next line of `text`, which is advanced past it.
std::string_view nextLine(std::string_view& text) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    return line;
}

// The blank-separated words of `line`.
std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    while (!line.empty()) {
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string_view::npos)
            break;
        line = line.substr(start);
        const size_t end = std::min(line.find_first_of(" \t"), line.size());
        out.push_back(line.substr(0, end));
        line = line.substr(end);
    }
    return out;
}

std::optional<uint64_t> number(std::string_view word, int base = 10) {
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value, base);
    if (error != std::errc() || end != word.data() + word.size())
        return std::nullopt; // "-1" (Tcp MaxConn) is no counter
    return value;
}

uint64_t grown(uint64_t from, uint64_t to) {
    return to > from ? to - from : 0;
}

// "/proc/thread-self/net/" or "/proc/PID/net/".
std::string netDirectory(int pid) {
    return pid > 0 ? "/proc/" + std::to_string(pid) + "/net/" : "/proc/thread-self/net/";
}

NetNamespaceSample readNamespace(const std::string& directory) {
    NetNamespaceSample sample;
    struct stat info {};
    if (stat((directory + "snmp").c_str(), &info) == 0)
        sample.id = uint64_t(info.st_ino);
    const auto snmp = readTextFile(directory + "snmp");
    if (!snmp)
        return sample; // the process is gone, or /proc is not the machine's
    sample.valid = true;
    parseSnmp(*snmp, sample.counters);
    if (const auto netstat = readTextFile(directory + "netstat"))
        parseSnmp(*netstat, sample.counters);
    if (const auto conntrack = readTextFile(directory + "stat/nf_conntrack"))
        parseConntrackStat(*conntrack, sample.counters);
    if (const auto dev = readTextFile(directory + "dev"))
        sample.counters.links = parseNetDev(*dev);
    return sample;
}

NetCounters difference(const NetCounters& a, const NetCounters& b) {
    NetCounters d;
    d.tcpRetransmits = grown(a.tcpRetransmits, b.tcpRetransmits);
    d.synRetransmits = grown(a.synRetransmits, b.synRetransmits);
    d.listenOverflows = grown(a.listenOverflows, b.listenOverflows);
    d.listenDrops = grown(a.listenDrops, b.listenDrops);
    d.tcpTimeouts = grown(a.tcpTimeouts, b.tcpTimeouts);
    d.resetsSent = grown(a.resetsSent, b.resetsSent);
    d.establishedResets = grown(a.establishedResets, b.establishedResets);
    d.conntrack = a.conntrack && b.conntrack;
    if (d.conntrack) {
        d.conntrackInsertFailed = grown(a.conntrackInsertFailed, b.conntrackInsertFailed);
        d.conntrackDrop = grown(a.conntrackDrop, b.conntrackDrop);
        d.conntrackEarlyDrop = grown(a.conntrackEarlyDrop, b.conntrackEarlyDrop);
        d.conntrackInvalid = grown(a.conntrackInvalid, b.conntrackInvalid);
    }
    // A link that came or went during the window has no difference to give.
    for (const LinkDrops& end : b.links) {
        const auto start = std::find_if(a.links.begin(), a.links.end(),
                                        [&end](const LinkDrops& l) { return l.name == end.name; });
        if (start != a.links.end())
            d.links.push_back(
                {end.name, grown(start->received, end.received), grown(start->sent, end.sent)});
    }
    return d;
}

} // namespace

std::string_view netRoleName(NetRole role) {
    switch (role) {
    case NetRole::Client:
        return "client";
    case NetRole::Server:
        return "server";
    case NetRole::ServerHost:
        return "server host";
    case NetRole::Machine:
        return "machine";
    }
    return "client";
}

std::optional<NetRole> netRoleFromName(std::string_view name) {
    for (const NetRole role :
         {NetRole::Client, NetRole::Server, NetRole::ServerHost, NetRole::Machine}) {
        if (netRoleName(role) == name)
            return role;
    }
    return std::nullopt;
}

uint64_t NetCounters::linkDrops() const {
    uint64_t drops = 0;
    for (const LinkDrops& link : links)
        drops += link.received + link.sent;
    return drops;
}

void parseSnmp(std::string_view text, NetCounters& into) {
    const struct {
        std::string_view group;
        std::string_view name;
        uint64_t NetCounters::*member;
    } wanted[] = {
        {"Tcp:", "RetransSegs", &NetCounters::tcpRetransmits},
        {"Tcp:", "OutRsts", &NetCounters::resetsSent},
        {"Tcp:", "EstabResets", &NetCounters::establishedResets},
        {"TcpExt:", "TCPSynRetrans", &NetCounters::synRetransmits},
        {"TcpExt:", "ListenOverflows", &NetCounters::listenOverflows},
        {"TcpExt:", "ListenDrops", &NetCounters::listenDrops},
        {"TcpExt:", "TCPTimeouts", &NetCounters::tcpTimeouts},
    };
    std::vector<std::string_view> names;
    while (!text.empty()) {
        const std::vector<std::string_view> line = words(nextLine(text));
        if (line.empty())
            continue;
        // A group's names, then its values on the next line under the same prefix.
        if (names.empty() || names.front() != line.front()) {
            names = line;
            continue;
        }
        for (size_t i = 1; i < std::min(names.size(), line.size()); ++i) {
            for (const auto& w : wanted) {
                if (names.front() == w.group && names[i] == w.name) {
                    if (const auto value = number(line[i]))
                        into.*w.member = *value;
                }
            }
        }
        names.clear();
    }
}

bool parseConntrackStat(std::string_view text, NetCounters& into) {
    const std::vector<std::string_view> header = words(nextLine(text));
    const auto column = [&header](std::string_view name) {
        const auto at = std::find(header.begin(), header.end(), name);
        return at == header.end() ? -1 : int(at - header.begin());
    };
    const struct {
        int column;
        uint64_t NetCounters::*member;
    } wanted[] = {{column("insert_failed"), &NetCounters::conntrackInsertFailed},
                  {column("drop"), &NetCounters::conntrackDrop},
                  {column("early_drop"), &NetCounters::conntrackEarlyDrop},
                  {column("invalid"), &NetCounters::conntrackInvalid}};
    if (std::any_of(std::begin(wanted), std::end(wanted),
                    [](const auto& w) { return w.column < 0; }))
        return false;
    NetCounters sums;
    while (!text.empty()) {
        const std::vector<std::string_view> cpu = words(nextLine(text));
        for (const auto& w : wanted) {
            if (size_t(w.column) < cpu.size())
                sums.*w.member += number(cpu[size_t(w.column)], 16).value_or(0);
        }
    }
    for (const auto& w : wanted)
        into.*w.member = sums.*w.member;
    into.conntrack = true;
    return true;
}

std::vector<LinkDrops> parseNetDev(std::string_view text) {
    // "  wire0: bytes packets errs drop fifo frame compressed multicast bytes packets errs drop
    // ...": receive then transmit; the first two lines are headers.
    std::vector<LinkDrops> links;
    while (!text.empty()) {
        const std::string_view line = nextLine(text);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos || line.find('|') != std::string_view::npos)
            continue;
        const std::vector<std::string_view> name = words(line.substr(0, colon));
        const std::vector<std::string_view> values = words(line.substr(colon + 1));
        if (name.size() != 1 || values.size() < 12)
            continue;
        links.push_back({std::string(name.front()), number(values[3]).value_or(0),
                         number(values[11]).value_or(0)});
    }
    return links;
}

std::optional<SoftnetCounters> parseSoftnetStat(std::string_view text) {
    std::optional<SoftnetCounters> counters;
    while (!text.empty()) {
        const std::vector<std::string_view> cpu = words(nextLine(text));
        if (cpu.size() < 3)
            continue;
        if (!counters)
            counters.emplace();
        counters->dropped += number(cpu[1], 16).value_or(0);
        counters->timeSqueeze += number(cpu[2], 16).value_or(0);
    }
    return counters;
}

NetCounterSampler::NetCounterSampler(std::vector<NetNamespaceSource> sources)
    : m_sources(std::move(sources)) {}

NetSample NetCounterSampler::sample() const {
    NetSample sample;
    sample.valid = true;
    for (const NetNamespaceSource& source : m_sources) {
        NetNamespaceSample read = readNamespace(netDirectory(source.pid));
        const auto same = std::find_if(
            sample.namespaces.begin(), sample.namespaces.end(),
            [&read](const NetNamespaceSample& n) { return read.id != 0 && n.id == read.id; });
        if (same != sample.namespaces.end()) {
            if (std::find(same->roles.begin(), same->roles.end(), source.role) == same->roles.end())
                same->roles.push_back(source.role);
            continue;
        }
        read.roles = {source.role};
        sample.namespaces.push_back(std::move(read));
    }
    if (const auto softnet = readTextFile("/proc/net/softnet_stat"))
        sample.softnet = parseSoftnetStat(*softnet);
    return sample;
}

NetWindow netWindow(const NetSample& start, const NetSample& end) {
    NetWindow w;
    if (!start.valid || !end.valid)
        return w;
    w.valid = true;
    for (const NetNamespaceSample& b : end.namespaces) {
        // The same namespace: the same id, or with none the same first role.
        const auto a = std::find_if(
            start.namespaces.begin(), start.namespaces.end(), [&b](const NetNamespaceSample& n) {
                return b.id != 0 ? n.id == b.id : n.roles.front() == b.roles.front();
            });
        if (a == start.namespaces.end() || !a->valid || !b.valid)
            continue;
        NetNamespaceSample d;
        d.roles = b.roles;
        d.id = b.id;
        d.valid = true;
        d.counters = difference(a->counters, b.counters);
        w.namespaces.push_back(std::move(d));
    }
    if (start.softnet && end.softnet)
        w.softnet = SoftnetCounters{grown(start.softnet->dropped, end.softnet->dropped),
                                    grown(start.softnet->timeSqueeze, end.softnet->timeSqueeze)};
    return w;
}

} // namespace loadscope::engine
