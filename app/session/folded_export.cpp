#include "app/session/folded_export.h"

#include "app/common/atomic_file_writer.h"
#include "app/session/percentile_export.h"

#include <QDir>
#include <map>

namespace loadscope::app {

std::vector<FoldedStacksFile> foldedStacksFiles(const Session& session) {
    std::map<std::pair<QUuid, int>, std::vector<const PointResult*>> profiled;
    for (const PointResult& r : session.results)
        if (!r.cancelled && r.profile && r.profile->taken() && !r.profile->stacks.empty())
            profiled[{r.targetId, r.concurrency}].push_back(&r);
    const std::map<QUuid, QString> stems = targetFileStems(session);
    std::vector<FoldedStacksFile> files;
    for (const Target& target : session.targets) {
        for (const auto& [key, results] : profiled) {
            if (key.first != target.id)
                continue;
            FoldedStacksFile file;
            file.fileName = stems.at(target.id) + QStringLiteral("_c") +
                            QString::number(key.second) + QStringLiteral(".folded");
            file.targetId = target.id;
            file.concurrency = key.second;
            file.results = int(results.size());
            file.text = foldedStacks(results).toUtf8();
            files.push_back(std::move(file));
        }
    }
    return files;
}

Result<QStringList> writeFoldedStacks(const Session& session, const QString& directory) {
    const QDir dir(directory);
    if (!dir.mkpath(QStringLiteral(".")))
        return makeError(ErrorCode::Io, QStringLiteral("cannot create the directory"),
                         QDir::toNativeSeparators(directory));
    QStringList written;
    for (const FoldedStacksFile& file : foldedStacksFiles(session)) {
        const QString path = dir.filePath(file.fileName);
        if (Result<void> saved = writeFileAtomically(path, file.text); !saved)
            return saved.error();
        written << path;
    }
    return written;
}

} // namespace loadscope::app
