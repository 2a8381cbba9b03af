#pragma once

#include "engine/cpu_profile.h"

#include <span>
#include <string_view>
#include <vector>

// Which kernel path a sample's call chain was in: the rules of DESIGN.md
// "Where the CPU went, by path", in one table (kernel_paths.cpp).
namespace loadscope::engine {

// One rule: a function name, or a prefix of names when it ends in '*'.
struct KernelPathRule {
    std::string_view pattern;
    CpuPath path;
};

// The table, in the order it is tried.
std::span<const KernelPathRule> kernelPathRules();

// The path of one function name, by the first rule it matches; nullopt when
// none does (a lock, an allocator, a list helper: its caller decides).
std::optional<CpuPath> pathOfFunction(std::string_view name);
// Whether `name` is the idle loop's (a CPU with nothing to run).
bool isIdleFunction(std::string_view name);

// The kernel part of a call chain, leaf first (the function the sample
// interrupted, then its callers). The first function from the leaf that a
// rule names decides: time in a spinlock under nf_conntrack_in is
// conntrack's, a copy under tcp_recvmsg is the copy's. A chain that reaches
// the idle loop before any rule is idle; one no rule names is OtherKernel.
struct KernelPathVerdict {
    CpuPath path = CpuPath::OtherKernel;
    bool idle = false;
};
KernelPathVerdict classifyKernelChain(std::span<const std::string_view> leafFirst);

} // namespace loadscope::engine
