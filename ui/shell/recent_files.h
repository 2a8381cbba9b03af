#pragma once

#include <QObject>
#include <QStringList>

namespace loadscope::ui {

// The sessions opened or saved lately, newest first, at most kMaximum,
// kept in QSettings so every window and the next start see them. Files that
// no longer exist are pruned when the list is read for a menu.
class RecentFiles : public QObject {
    Q_OBJECT

public:
    static constexpr int kMaximum = 10;

    explicit RecentFiles(QObject* parent = nullptr);

    // As stored, without touching the disk.
    QStringList files() const { return m_files; }
    // Drops the files that are gone, then returns the rest.
    QStringList existingFiles();
    // Puts `path` first (absolute, no duplicates), trimming the list to kMaximum.
    void add(const QString& path);
    void remove(const QString& path);
    void clear();

Q_SIGNALS:
    void filesChanged();

private:
    void store(const QStringList& files);

    QStringList m_files;
};

} // namespace loadscope::ui
