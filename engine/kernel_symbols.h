#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// The kernel's function symbols, as /proc/kallsyms lists them, to name the
// kernel addresses of a sample's call chain. Plain value; never throws.
class KernelSymbols {
public:
    // Parses /proc/kallsyms text ("ffffffff81000000 T _stext", a module's
    // symbols with "\t[module]" after): text symbols only.
    static KernelSymbols parse(std::string_view text);
    // This machine's, read once per process and shared: from the descriptor
    // in LOADSCOPE_PROFILE_KALLSYMS_FD when it is set (the lab's sandbox hands
    // in one opened where addresses are shown), else /proc/kallsyms.
    static std::shared_ptr<const KernelSymbols> machine();

    // The function that holds `address`, without a compiler suffix
    // (".isra.0", ".constprop.0", ".cold"); empty when none does.
    std::string_view lookup(uint64_t address) const;
    // Whether the file hid every address (kernel.kptr_restrict, or
    // perf_event_paranoid above 1 for a reader without CAP_SYSLOG).
    bool hidden() const { return m_hidden; }
    size_t size() const { return m_starts.size(); }

private:
    std::vector<uint64_t> m_starts; // ascending
    std::vector<uint32_t> m_names;  // offset of each name in m_pool
    std::vector<uint16_t> m_lengths;
    std::string m_pool;
    bool m_hidden = false;
};

} // namespace loadscope::engine
