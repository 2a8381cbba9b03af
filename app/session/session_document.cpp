#include "app/session/session_document.h"

#include "app/common/background_job.h"
#include "app/session/session_file.h"

#include <QCoroSignal>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>
#include <algorithm>
#include <utility>

namespace loadscope::app {

SessionDocument::SessionDocument(QObject* parent)
    : QObject(parent) {}

QString SessionDocument::displayName() const {
    if (!m_session.name.trimmed().isEmpty())
        return m_session.name.trimmed();
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).completeBaseName();
    return tr("Untitled");
}

std::shared_ptr<const Session> SessionDocument::sharedSession() const {
    if (!m_shared)
        m_shared = std::make_shared<const Session>(m_session);
    return m_shared;
}

void SessionDocument::reset(Session session, const QString& filePath) {
    reset(std::move(session), nullptr, filePath);
}

void SessionDocument::reset(Session session, std::shared_ptr<const Session> shared,
                            const QString& filePath) {
    // The replaced session is freed on a worker: ten thousand results take
    // milliseconds to free, too. Its data is shared only by immutable copies.
    auto replaced = std::make_shared<Session>(std::exchange(m_session, std::move(session)));
    if (!replaced->results.empty())
        QThreadPool::globalInstance()->start(
            [replaced = std::move(replaced)]() mutable { replaced.reset(); });
    dropShared();
    ++m_resets;
    m_shared = std::move(shared);
    setFilePath(filePath);
    Q_EMIT sessionChanged();
    Q_EMIT resultsChanged();
    setModified(false);
    Q_EMIT sessionReplaced();
}

Result<void> SessionDocument::open(const QString& pathOrExampleName) {
    Result<Session> loaded = openSession(pathOrExampleName);
    if (!loaded)
        return loaded.error();
    // Examples live in read-only resources: saving one must ask for a place.
    const bool isFile = QFileInfo(pathOrExampleName).isFile();
    reset(std::move(*loaded), isFile ? QFileInfo(pathOrExampleName).absoluteFilePath() : QString());
    return {};
}

Result<void> SessionDocument::save() {
    if (m_filePath.isEmpty())
        return makeError(ErrorCode::InvalidInput,
                         tr("the session has no file yet: save it under a name first"));
    return saveAs(m_filePath);
}

Result<void> SessionDocument::saveAs(const QString& filePath) {
    if (Result<void> saved = saveSessionFile(m_session, filePath); !saved)
        return saved;
    setFilePath(QFileInfo(filePath).absoluteFilePath());
    setModified(false);
    return {};
}

QCoro::Task<Result<void>> SessionDocument::saveInBackground(QString filePath) {
    QPointer<SessionDocument> self(this);
    while (m_saving) {
        // The waiters resume in the order they came, each inside the signal:
        // the first takes the turn, the others wait again.
        co_await qCoro(this, &SessionDocument::backgroundSaveEnded);
        if (!self)
            co_return makeError(ErrorCode::Cancelled, tr("the session closed before it was saved"));
    }
    const QString path = filePath.isEmpty() ? m_filePath : filePath;
    if (path.isEmpty())
        co_return makeError(ErrorCode::InvalidInput,
                            tr("the session has no file yet: save it under a name first"));
    m_saving = true;
    const quint64 edits = m_edits;
    const quint64 resets = m_resets;
    const auto write = [session = sharedSession(), path] {
        return std::make_shared<Result<void>>(saveSessionFile(*session, path));
    };
    const std::shared_ptr<Result<void>> saved = co_await runOnWorkerThread(write);
    if (!self)
        co_return *saved; // written; nothing is left to tell
    m_saving = false;
    if (*saved && m_resets == resets) {
        setFilePath(QFileInfo(path).absoluteFilePath());
        if (m_edits == edits)
            setModified(false);
    }
    Q_EMIT backgroundSaveEnded();
    co_return *saved;
}

void SessionDocument::setName(const QString& name) {
    if (m_session.name == name)
        return;
    m_session.name = name;
    markEdited(false);
}

void SessionDocument::setNotes(const QString& notes) {
    if (m_session.notes == notes)
        return;
    m_session.notes = notes;
    markEdited(false);
}

void SessionDocument::setPlan(const SweepPlan& plan) {
    if (m_session.plan == plan)
        return;
    m_session.plan = plan;
    markEdited(false);
}

void SessionDocument::setLab(const std::optional<LabSetup>& lab) {
    if (m_session.lab == lab)
        return;
    m_session.lab = lab;
    markEdited(false);
}

Result<void> SessionDocument::setHosts(const std::vector<Host>& hosts) {
    for (size_t i = 0; i < hosts.size(); ++i) {
        if (auto checked = checkHost(hosts[i]); !checked)
            return checked;
        for (size_t k = 0; k < i; ++k) {
            if (hosts[k].name == hosts[i].name)
                return invalidInput(QStringLiteral("two hosts are named '%1'").arg(hosts[i].name));
        }
    }
    const auto has = [&hosts](const QString& name) {
        return name.isEmpty() || std::any_of(hosts.begin(), hosts.end(),
                                             [&name](const Host& h) { return h.name == name; });
    };
    for (const Target& target : m_session.targets) {
        for (const QString& name : target.loadFrom) {
            if (!has(name))
                return invalidInput(QStringLiteral("target '%1' loads from host '%2'")
                                        .arg(target.displayName(), name));
        }
        if (!has(target.serverHost))
            return invalidInput(QStringLiteral("target '%1' has its server on host '%2'")
                                    .arg(target.displayName(), target.serverHost));
    }
    if (m_session.lab && !has(m_session.lab->host))
        return invalidInput(
            QStringLiteral("the lab is built on host '%1'").arg(m_session.lab->host));
    if (m_session.hosts == hosts)
        return {};
    m_session.hosts = hosts;
    markEdited(false);
    return {};
}

QUuid SessionDocument::addTarget(Target target) {
    if (target.id.isNull() || m_session.findTarget(target.id))
        target.id = QUuid::createUuid();
    const QUuid id = target.id;
    m_session.targets.push_back(std::move(target));
    if (m_session.targets.size() == 1)
        m_session.baselineTargetId = id;
    markEdited(false);
    return id;
}

bool SessionDocument::updateTarget(const Target& target) {
    Target* existing = m_session.findTarget(target.id);
    if (!existing)
        return false;
    if (*existing == target)
        return true;
    *existing = target;
    markEdited(false);
    return true;
}

bool SessionDocument::removeTarget(const QUuid& id) {
    const size_t resultsBefore = m_session.results.size();
    if (!m_session.removeTarget(id))
        return false;
    markEdited(m_session.results.size() != resultsBefore);
    return true;
}

bool SessionDocument::moveTarget(int from, int to) {
    const auto count = static_cast<int>(m_session.targets.size());
    if (from < 0 || from >= count || to < 0 || to >= count)
        return false;
    if (from == to)
        return true;
    auto& targets = m_session.targets;
    Target moved = std::move(targets[static_cast<size_t>(from)]);
    targets.erase(targets.begin() + from);
    targets.insert(targets.begin() + to, std::move(moved));
    markEdited(false);
    return true;
}

bool SessionDocument::setBaseline(const QUuid& id) {
    if (!m_session.findTarget(id))
        return false;
    if (m_session.baselineTargetId == id)
        return true;
    m_session.baselineTargetId = id;
    markEdited(false);
    return true;
}

void SessionDocument::putResult(PointResult result) {
    dropShared();
    m_session.putResult(std::move(result));
    Q_EMIT resultsChanged();
    setModified(true);
}

void SessionDocument::putResults(std::vector<PointResult> results) {
    if (results.empty())
        return;
    dropShared();
    for (PointResult& result : results)
        m_session.putResult(std::move(result));
    Q_EMIT resultsChanged();
    setModified(true);
}

void SessionDocument::clearResults() {
    if (m_session.results.empty())
        return;
    dropShared();
    m_session.results.clear();
    Q_EMIT resultsChanged();
    setModified(true);
}

void SessionDocument::setModified(bool modified) {
    if (m_modified == modified)
        return;
    m_modified = modified;
    Q_EMIT modifiedChanged(m_modified);
}

void SessionDocument::dropShared() {
    // Whoever still reads it keeps it; the last reference is let go on a
    // worker, as the replaced session in reset().
    if (m_shared.use_count() == 1 && !m_shared->results.empty())
        QThreadPool::globalInstance()->start(
            [last = std::move(m_shared)]() mutable { last.reset(); });
    m_shared.reset();
}

void SessionDocument::markEdited(bool resultsToo) {
    dropShared();
    ++m_edits;
    Q_EMIT sessionChanged();
    if (resultsToo)
        Q_EMIT resultsChanged();
    setModified(true);
}

void SessionDocument::setFilePath(const QString& filePath) {
    if (m_filePath == filePath)
        return;
    m_filePath = filePath;
    Q_EMIT filePathChanged(m_filePath);
}

} // namespace loadscope::app
