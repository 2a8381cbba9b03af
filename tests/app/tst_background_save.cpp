// SessionDocument::saveInBackground(): the file is written on a worker (by the kernel's
// count of each thread's writes) while the caller's event loop runs on, one write at a time in the
// order asked, and the document's state afterwards is what the file holds.
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "session_test_data.h"

#include <QCoroTask>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <unistd.h>

using namespace loadscope::app;
namespace test = loadscope::test;

class TestBackgroundSave : public QObject {
    Q_OBJECT

private:
    // The bytes each live thread of this process has written, by thread id: the kernel's own
    // count (wchar of /proc/self/task/TID/io: every write, to any file).
    static std::map<int, qint64> bytesWrittenByThread() {
        std::map<int, qint64> written;
        const QDir tasks(QStringLiteral("/proc/self/task"));
        for (const QString& thread : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile io(tasks.filePath(thread + QStringLiteral("/io")));
            if (!io.open(QIODevice::ReadOnly))
                continue; // a thread that ended meanwhile
            for (const QByteArray& line : io.readAll().split('\n'))
                if (line.startsWith("wchar: "))
                    written[thread.toInt()] = line.mid(7).toLongLong();
        }
        return written;
    }

    static QString notesIn(const QString& path) {
        const auto loaded = loadSessionFile(path);
        return loaded ? loaded->notes : QStringLiteral("<unreadable>");
    }

    // A document of a small session with `notes`, not yet saved, and a file
    // path in a directory of its own.
    struct Unsaved {
        explicit Unsaved(const QString& notes) {
            document.reset(test::twoTargetSession());
            document.setNotes(notes);
        }
        QTemporaryDir dir;
        QString path = dir.filePath(QStringLiteral("s.loadscope"));
        SessionDocument document;
    };

private Q_SLOTS:
    // The kernel counts the bytes each thread writes (/proc/self/task/TID/io, wchar): the
    // file's bytes are written by a thread of the process that is not this one.
    void savesOffTheCallingThread() {
        // A megabyte of notes: the file stands out among what any thread writes meanwhile
        // (an event loop's wake-ups, 8 bytes each).
        const QString notes = QStringLiteral("first ") + QString(1 << 20, QLatin1Char('n'));
        Unsaved unsaved(notes);
        SessionDocument& document = unsaved.document;
        const QString& path = unsaved.path;
        const int callingThread = int(::gettid());
        const std::map<int, qint64> before = bytesWrittenByThread();
        QVERIFY(before.count(callingThread));
        auto saving = document.saveInBackground(path);
        // Handed back before the write was applied: that needs this thread's event loop.
        QVERIFY(document.isSaving());
        QVERIFY(document.isModified());
        const Result<void> saved = QCoro::waitFor(std::move(saving));
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        const std::map<int, qint64> after = bytesWrittenByThread();
        QVERIFY(!document.isSaving());
        QVERIFY(!document.isModified());
        QCOMPARE(document.filePath(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(notesIn(path), notes);

        const qint64 fileBytes = QFileInfo(path).size();
        QVERIFY(fileBytes > (1 << 20));
        const auto wrote = [&](int thread) {
            const auto was = before.find(thread);
            return after.at(thread) - (was == before.end() ? 0 : was->second);
        };
        int writer = 0;
        for (const auto& [thread, bytes] : after)
            if (wrote(thread) >= fileBytes)
                writer = thread;
        const qint64 callerWrote = wrote(callingThread);
        QVERIFY2(callerWrote < fileBytes / 2,
                 qPrintable(QStringLiteral("the calling thread wrote %1 bytes of a %2-byte file")
                                .arg(callerWrote)
                                .arg(fileBytes)));
        QVERIFY2(writer != 0 && writer != callingThread,
                 qPrintable(QStringLiteral("no other thread wrote the %1 bytes").arg(fileBytes)));
    }

    void anEditDuringTheWriteStaysUnsaved() {
        Unsaved unsaved(QStringLiteral("written"));
        SessionDocument& document = unsaved.document;
        const QString& path = unsaved.path;
        auto saving = document.saveInBackground(path);
        document.setNotes(QStringLiteral("edited while writing"));
        QVERIFY(QCoro::waitFor(std::move(saving)));
        QCOMPARE(notesIn(path), QStringLiteral("written"));
        QVERIFY(document.isModified());
    }

    void savesAskedTogetherAreWrittenInOrder() {
        Unsaved unsaved(QStringLiteral("one"));
        SessionDocument& document = unsaved.document;
        const QString& path = unsaved.path;
        auto first = document.saveInBackground(path);
        document.setNotes(QStringLiteral("two"));
        // Waits for the first write, then writes the session as it is then.
        auto second = document.saveInBackground(path);
        document.setNotes(QStringLiteral("three"));
        QVERIFY(QCoro::waitFor(std::move(first)));
        QVERIFY(QCoro::waitFor(std::move(second)));
        QCOMPARE(notesIn(path), QStringLiteral("three"));
        QVERIFY(!document.isModified());
        QCOMPARE(QDir(unsaved.dir.path()).entryList(QDir::Files),
                 QStringList{QStringLiteral("s.loadscope")}); // no temporary file left
    }

    void aSessionReplacedDuringTheWriteIsLeftAlone() {
        Unsaved unsaved(QStringLiteral("old session"));
        SessionDocument& document = unsaved.document;
        const QString& path = unsaved.path;
        auto saving = document.saveInBackground(path);
        Session other = test::twoTargetSession();
        other.notes = QStringLiteral("new session");
        document.reset(std::move(other));
        QVERIFY(QCoro::waitFor(std::move(saving)));
        QCOMPARE(notesIn(path), QStringLiteral("old session"));
        QVERIFY(document.filePath().isEmpty());
        QCOMPARE(document.session().notes, QStringLiteral("new session"));
    }

    void aFailedWriteLeavesTheDocumentModified() {
        Unsaved unsaved(QStringLiteral("nowhere to go"));
        SessionDocument& document = unsaved.document;
        const QString path = unsaved.dir.filePath(QStringLiteral("no/such/dir/s.loadscope"));
        const Result<void> saved = QCoro::waitFor(document.saveInBackground(path));
        QVERIFY(!saved);
        QVERIFY2(saved.error().toString().startsWith(path), qPrintable(saved.error().toString()));
        QVERIFY(document.isModified());
        QVERIFY(document.filePath().isEmpty());
        // Without a path and without a file of its own: one line, nothing written.
        const Result<void> unnamed = QCoro::waitFor(document.saveInBackground());
        QVERIFY(!unnamed);
        QCOMPARE(unnamed.error().code, ErrorCode::InvalidInput);
    }
};

QTEST_GUILESS_MAIN(TestBackgroundSave)
#include "tst_background_save.moc"
