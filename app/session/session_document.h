#pragma once

#include "app/common/result.h"
#include "app/session/session.h"

#include <QCoroTask>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

namespace loadscope::app {

// The open session of a window: a Session, the file it lives in, and whether
// it has changes not yet saved. Every edit goes through here so views learn
// of it by signal. Loading and saving use session_file.h; a failed open
// leaves the document exactly as it was.
class SessionDocument : public QObject {
    Q_OBJECT

public:
    explicit SessionDocument(QObject* parent = nullptr);

    const Session& session() const { return m_session; }
    // The session as it is now, immutable, for work on another thread. Made
    // once per state: the same object until the next edit, and none is made
    // on this thread when the state came with one (reset()).
    std::shared_ptr<const Session> sharedSession() const;
    // Empty for a new session or one opened from the examples (saving such a
    // session needs saveAs()).
    QString filePath() const { return m_filePath; }
    bool isModified() const { return m_modified; }
    // The session's name, else the file's base name, else "Untitled".
    QString displayName() const;

    // Replaces the whole session (new, opened elsewhere); not modified afterwards.
    void reset(Session session, const QString& filePath = {});
    // The same, with `shared`, a copy of `session` made where it was read (a
    // worker thread), as the first sharedSession(): ten thousand results take
    // milliseconds to copy, which the GUI thread then does not spend.
    void reset(Session session, std::shared_ptr<const Session> shared,
               const QString& filePath = {});
    // Opens a .loadscope file, or an example session by name ("demo-proxy").
    Result<void> open(const QString& pathOrExampleName);
    // Writes the session to its file (saveAs(): to `filePath`, which the
    // document then names) on the calling thread: for a command line, where
    // nothing else waits.
    Result<void> save();
    Result<void> saveAs(const QString& filePath);
    // The same off the calling thread, for a window: the session as it is
    // when the write begins (sharedSession()) is written atomically
    // (saveSessionFile()) on a worker thread while this thread's event loop
    // runs on. One write at a time, in the order asked: a save asked while
    // another is being written waits for it, and so writes what came since.
    // Afterwards the document names the file and is unmodified, unless it was
    // edited while the write went on (it is then still modified) or replaced
    // by reset() (it is then left alone). An empty `filePath`: the
    // document's own file, which it must have.
    QCoro::Task<Result<void>> saveInBackground(QString filePath = {});
    // A save in the background is being written.
    bool isSaving() const { return m_saving; }

    void setName(const QString& name);
    void setNotes(const QString& notes);
    void setPlan(const SweepPlan& plan);
    // The deployment lab of the session's lab targets (nullopt: none).
    void setLab(const std::optional<LabSetup>& lab);
    // The session's hosts; refused in one line, the session unchanged, when one
    // breaks a rule of host.h, two share a name, or a target or the lab names a
    // host the list no longer has.
    Result<void> setHosts(const std::vector<Host>& hosts);
    // Adds a target (a fresh id is given when it has none) and returns its id.
    QUuid addTarget(Target target);
    // Replaces the target with the same id; false when there is none.
    bool updateTarget(const Target& target);
    // Removes the target and its results.
    bool removeTarget(const QUuid& id);
    bool moveTarget(int from, int to);
    bool setBaseline(const QUuid& id);

    // Adds a result or replaces the one with the same target, concurrency and
    // repetition (see Session::putResult()).
    void putResult(PointResult result);
    // The same for many, with one resultsChanged() (a removed target's results put back).
    void putResults(std::vector<PointResult> results);
    void clearResults();

    void setModified(bool modified);

Q_SIGNALS:
    // Targets, plan, lab, baseline, name or notes changed (or the whole session).
    void sessionChanged();
    // Results were added, replaced or removed.
    void resultsChanged();
    // reset() put another session in place (new, opened), after sessionChanged() and
    // resultsChanged(): what a view kept of the session before (a run's log, a half-typed
    // field, a pick) is no longer about this one.
    void sessionReplaced();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& filePath);
    // A write of saveInBackground() ended, well or not.
    void backgroundSaveEnded();

private:
    void markEdited(bool resultsToo);
    void dropShared();
    void setFilePath(const QString& filePath);

    Session m_session;
    // Equal to m_session when set; dropped by every edit.
    mutable std::shared_ptr<const Session> m_shared;
    QString m_filePath;
    bool m_modified = false;
    bool m_saving = false;
    quint64 m_edits = 0;  // markEdited() calls so far
    quint64 m_resets = 0; // reset() calls so far
};

} // namespace loadscope::app
