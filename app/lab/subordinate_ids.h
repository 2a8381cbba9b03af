#pragma once

#include "app/common/result.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>

namespace loadscope::app::lab {

// A range of ids /etc/subuid or /etc/subgid grants a user: what rootless containers map
// above their own root, so that a server can drop to a user of its own (Apache to www-data).
struct SubordinateRange {
    uint64_t start = 0;
    uint64_t count = 0;
};

// The ids the sandbox maps above root, as many as a Debian system's users need.
inline constexpr uint64_t kSubordinateIdsWanted = 65535;

// The first range of `file` ("name:start:count" lines; a line may name the uid instead) for
// the user `name` or `id`; nullopt when there is none or the file cannot be read.
std::optional<SubordinateRange> subordinateRange(const std::string& file, const std::string& name,
                                                 uint64_t id);

// The caller's ranges in /etc/subuid and /etc/subgid.
struct SubordinateIds {
    SubordinateRange users;
    SubordinateRange groups;
};

// How an unprivileged sandbox can map more than its own uid: newuidmap and newgidmap
// (Debian package uidmap) and a range of at least kSubordinateIdsWanted ids in /etc/subuid
// and /etc/subgid for the caller. Its ranges when it can; otherwise what is missing, one
// clause ("newuidmap is not installed (Debian package uidmap)", "/etc/subuid grants nobody
// no ids").
Result<SubordinateIds> subordinateIds(uid_t uid);

// Maps `keeper`'s user namespace: the caller's uid and gid to root, and inside ids
// 1..kSubordinateIdsWanted to the starts of `ids`, through newuidmap and newgidmap (setuid
// helpers: only they may map ids the caller does not own).
Result<void> mapSubordinateIds(pid_t keeper, uid_t uid, gid_t gid, const SubordinateIds& ids);

} // namespace loadscope::app::lab
