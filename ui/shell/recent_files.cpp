#include "ui/shell/recent_files.h"

#include "ui/common/background_settings.h"

#include <QFileInfo>

namespace loadscope::ui {

namespace {
const QString kKey = QStringLiteral("session/recentFiles");
}

RecentFiles::RecentFiles(QObject* parent)
    : QObject(parent) {
    m_files = settings::value(kKey).toStringList();
    while (m_files.size() > kMaximum)
        m_files.removeLast();
}

QStringList RecentFiles::existingFiles() {
    QStringList kept;
    for (const QString& file : m_files) {
        if (QFileInfo(file).isFile())
            kept << file;
    }
    if (kept != m_files)
        store(kept);
    return m_files;
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = m_files;
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaximum)
        files.removeLast();
    store(files);
}

void RecentFiles::remove(const QString& path) {
    QStringList files = m_files;
    files.removeAll(QFileInfo(path).absoluteFilePath());
    store(files);
}

void RecentFiles::clear() {
    store({});
}

void RecentFiles::store(const QStringList& files) {
    if (files == m_files)
        return;
    m_files = files;
    settings::setValue(kKey, m_files);
    Q_EMIT filesChanged();
}

} // namespace loadscope::ui
