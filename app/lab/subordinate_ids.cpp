#include "app/lab/subordinate_ids.h"

#include "app/lab/netns_command.h"

#include <QFile>
#include <pwd.h>

namespace loadscope::app::lab {

namespace {

std::string userName(uid_t uid) {
    const passwd* user = getpwuid(uid);
    return user ? user->pw_name : std::string();
}

// The caller's range of `file` when it is large enough, or why not.
Result<SubordinateRange> wantedRange(const std::string& file, const std::string& name,
                                     uint64_t id) {
    const auto range = subordinateRange(file, name, id);
    const QString who = name.empty() ? QString::number(id) : QString::fromStdString(name);
    if (!range)
        return makeError(
            ErrorCode::Unreachable,
            QStringLiteral("%1 grants %2 no ids").arg(QString::fromStdString(file), who));
    if (range->count < kSubordinateIdsWanted)
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("%1 grants %2 %3 ids, fewer than the %4 a system's users "
                                        "need")
                             .arg(QString::fromStdString(file), who)
                             .arg(range->count)
                             .arg(kSubordinateIdsWanted));
    return *range;
}

Result<void> helpersInstalled() {
    for (const char* helper : {"newuidmap", "newgidmap"}) {
        if (findInPath(helper).empty())
            return makeError(ErrorCode::Unreachable,
                             QStringLiteral("%1 is not installed (Debian package uidmap)")
                                 .arg(QLatin1String(helper)));
    }
    return {};
}

} // namespace

std::optional<SubordinateRange> subordinateRange(const std::string& file, const std::string& name,
                                                 uint64_t id) {
    QFile input(QString::fromStdString(file));
    if (!input.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray idText = QByteArray::number(qulonglong(id));
    for (const QByteArray& line : input.readAll().split('\n')) {
        const QList<QByteArray> fields = line.trimmed().split(':');
        if (fields.size() != 3 || (fields[0] != name.c_str() && fields[0] != idText))
            continue;
        bool startOk = false;
        bool countOk = false;
        const SubordinateRange range{fields[1].toULongLong(&startOk),
                                     fields[2].toULongLong(&countOk)};
        if (startOk && countOk && range.count > 0)
            return range;
    }
    return std::nullopt;
}

Result<SubordinateIds> subordinateIds(uid_t uid) {
    if (auto installed = helpersInstalled(); !installed)
        return installed.error();
    // Both files name users, not groups: newgidmap looks the caller up in /etc/subgid by
    // name or uid, as newuidmap does in /etc/subuid.
    const std::string name = userName(uid);
    auto users = wantedRange("/etc/subuid", name, uid);
    if (!users)
        return users.error();
    auto groups = wantedRange("/etc/subgid", name, uid);
    if (!groups)
        return groups.error();
    return SubordinateIds{*users, *groups};
}

Result<void> mapSubordinateIds(pid_t keeper, uid_t uid, gid_t gid, const SubordinateIds& ids) {
    const std::string pid = std::to_string(keeper);
    const std::string above = std::to_string(kSubordinateIdsWanted);
    if (auto mapped = runInNetns(-1, {"newuidmap", pid, "0", std::to_string(uid), "1", "1",
                                      std::to_string(ids.users.start), above});
        !mapped)
        return mapped.error();
    if (auto mapped = runInNetns(-1, {"newgidmap", pid, "0", std::to_string(gid), "1", "1",
                                      std::to_string(ids.groups.start), above});
        !mapped)
        return mapped.error();
    return {};
}

} // namespace loadscope::app::lab
