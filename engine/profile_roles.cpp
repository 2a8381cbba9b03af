#include "engine/profile_roles.h"

#include "engine/text_file.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <unistd.h>

namespace loadscope::engine {

namespace {

int leadingNumber(std::string_view text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() ? value : 0;
}

std::string readLink(const char* path) {
    char target[PATH_MAX];
    const ssize_t length = readlink(path, target, sizeof target - 1);
    return length > 0 ? std::string(target, size_t(length)) : std::string();
}

std::string proc(int pid, const char* entry) {
    return "/proc/" + std::to_string(pid) + "/" + entry;
}

std::string basename(std::string_view path) {
    const size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace

int procPidOfSelf() {
    // /proc/self is a link to this process as the mounted /proc's PID namespace names it.
    const int pid = leadingNumber(readLink("/proc/self"));
    return pid > 0 ? pid : int(getpid());
}

int procTidOfThisThread() {
    // "PID/task/TID"
    const std::string link = readLink("/proc/thread-self");
    const size_t slash = link.rfind('/');
    const int tid = slash == std::string::npos ? 0 : leadingNumber(link.substr(slash + 1));
    return tid > 0 ? tid : int(gettid());
}

ProfileRoles::ProfileRoles(ServerCpuSource server)
    : m_server(std::move(server))
    , m_ownPid(procPidOfSelf())
    , m_serverThreads(m_server.threads) {
    if (m_server.pid > 0 && m_server.withChildren)
        m_serverTrees.push_back(m_server.pid);
    // "7395,7401": the lab's servers and relays, as /proc names them.
    const auto pids = [](const char* text, std::vector<int>& into) {
        std::string_view rest(text);
        while (!rest.empty()) {
            const int pid = leadingNumber(rest);
            if (pid > 0)
                into.push_back(pid);
            const size_t comma = rest.find(',');
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    };
    if (const char* lab = std::getenv("LOADSCOPE_LAB_SERVER_PIDS"))
        pids(lab, m_serverTrees);
    if (const char* relays = std::getenv("LOADSCOPE_LAB_RELAY_PIDS")) {
        m_inLab = true;
        pids(relays, m_labRelays);
    }
}

bool ProfileRoles::isRelay(std::string_view comm, std::string_view cmdline) {
    // The relays a deployment puts between a client and a server: Docker's
    // userland proxy, rootless containers' slirp4netns, Open vSwitch's
    // switch daemon (its userspace datapath), and Loadscope's own relay.
    if (comm == "docker-proxy" || comm == "slirp4netns" || comm == "ovs-vswitchd")
        return true;
    // "…/loadscope-cli\0serve\0proxy\0…"
    const size_t program = cmdline.find('\0');
    if (program == std::string_view::npos)
        return false;
    if (basename(cmdline.substr(0, program)) != "loadscope-cli")
        return false;
    return cmdline.substr(program + 1).starts_with(std::string_view("serve\0proxy\0", 12));
}

bool ProfileRoles::inCgroup(std::string_view serverCgroupDir, std::string_view procCgroup) {
    while (!serverCgroupDir.empty() && serverCgroupDir.back() == '/')
        serverCgroupDir.remove_suffix(1);
    // Each line "ID:controllers:/path" (v2: "0::/path"); a process is in the
    // server's cgroup when its path, or one of the path's ancestors, ends the
    // server's directory (/sys/fs/cgroup/system.slice/x.scope ends with /system.slice/x.scope).
    while (!procCgroup.empty()) {
        const size_t eol = procCgroup.find('\n');
        std::string_view line = procCgroup.substr(0, eol);
        procCgroup =
            eol == std::string_view::npos ? std::string_view() : procCgroup.substr(eol + 1);
        const size_t first = line.find(':');
        const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos)
            continue;
        std::string_view path = line.substr(second + 1);
        while (path.size() > 1) {
            if (serverCgroupDir.ends_with(path))
                return true;
            const size_t parent = path.rfind('/');
            if (parent == std::string_view::npos || parent == 0)
                break;
            path = path.substr(0, parent);
        }
    }
    return false;
}

bool ProfileRoles::descendsFrom(int pid, const std::vector<int>& roots) const {
    // Up the parents, at most a few dozen generations.
    int current = pid;
    for (int depth = 0; depth < 64 && current > 1; ++depth) {
        if (std::find(roots.begin(), roots.end(), current) != roots.end())
            return true;
        const auto stat = readTextFile(proc(current, "stat"));
        const auto parsed = stat ? parseProcessStat(*stat) : std::nullopt;
        if (!parsed)
            return false;
        current = parsed->ppid;
    }
    return false;
}

const ProfileRoles::Process& ProfileRoles::lookup(int pid) {
    if (const auto found = m_processes.find(pid); found != m_processes.end())
        return found->second;
    Process p;
    if (pid == 0) {
        p.role = ProcessRole::Kernel;
        p.name = "swapper";
        return m_processes.emplace(pid, std::move(p)).first->second;
    }
    const auto comm = readTextFile(proc(pid, "comm"));
    p.name = comm ? comm->substr(0, comm->find('\n')) : "?";
    const auto stat = readTextFile(proc(pid, "stat"));
    const auto parsed = stat ? parseProcessStat(*stat) : std::nullopt;
    const bool kernelThread = pid == 2 || (parsed && parsed->ppid == 2);
    std::optional<std::string> cmdline;
    if (!kernelThread)
        cmdline = readTextFile(proc(pid, "cmdline"));
    const bool named = !kernelThread && isRelay(p.name, cmdline ? *cmdline : std::string());
    const bool inServerTree =
        !kernelThread && ((m_server.pid > 0 && pid == m_server.pid) ||
                          (!m_serverTrees.empty() && descendsFrom(pid, m_serverTrees)));
    if (kernelThread) {
        p.role = ProcessRole::Kernel;
    } else if (inServerTree) {
        // A relay the server's tree holds below its root (the lab's sidecar: the pod's proxy,
        // which the pod's shell starts beside the server) is still the relay; a relay named
        // as the server itself is what is measured.
        const bool root =
            pid == m_server.pid ||
            std::find(m_serverTrees.begin(), m_serverTrees.end(), pid) != m_serverTrees.end();
        p.role = named && !root ? ProcessRole::Relay : ProcessRole::Server;
    } else if (!m_server.cgroup.empty() && [&] {
                   const auto cgroup = readTextFile(proc(pid, "cgroup"));
                   return cgroup && inCgroup(m_server.cgroup, *cgroup);
               }()) {
        p.role = ProcessRole::Server;
    } else if (pid == m_ownPid) {
        p.role = ProcessRole::Client;
    } else {
        const bool ours = !m_inLab || (named && descendsFrom(pid, m_labRelays));
        p.role = named && ours ? ProcessRole::Relay : ProcessRole::Other;
    }
    if (!kernelThread) {
        // The executable mappings, to name a user-space frame by its file.
        if (const auto maps = readTextFile(proc(pid, "maps"))) {
            std::string_view text(*maps);
            while (!text.empty()) {
                const size_t eol = text.find('\n');
                const std::string_view line = text.substr(0, eol);
                text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
                // "start-end perms offset dev inode path"
                const size_t dash = line.find('-');
                const size_t space = line.find(' ');
                if (dash == std::string_view::npos || space == std::string_view::npos ||
                    line.size() < space + 4 || line[space + 3] != 'x')
                    continue;
                Mapping m;
                std::from_chars(line.data(), line.data() + dash, m.start, 16);
                std::from_chars(line.data() + dash + 1, line.data() + space, m.end, 16);
                const size_t path = line.find_first_of("/[", space);
                m.name = path == std::string_view::npos ? std::string("[anon]")
                                                        : basename(line.substr(path));
                if (!m.name.empty() && m.name.front() != '[')
                    m.name = "[" + m.name + "]";
                p.executable.push_back(std::move(m));
            }
        }
    }
    return m_processes.emplace(pid, std::move(p)).first->second;
}

ProcessRole ProfileRoles::roleOf(int pid, int tid) {
    if (pid == m_ownPid &&
        std::find(m_serverThreads.begin(), m_serverThreads.end(), tid) != m_serverThreads.end())
        return ProcessRole::Server;
    return lookup(pid).role;
}

const std::string& ProfileRoles::nameOf(int pid) {
    return lookup(pid).name;
}

std::string ProfileRoles::moduleOf(int pid, uint64_t address) {
    for (const Mapping& m : lookup(pid).executable)
        if (address >= m.start && address < m.end)
            return m.name;
    return "[unknown]";
}

} // namespace loadscope::engine
