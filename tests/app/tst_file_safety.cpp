// Files as a hostile user hands them over: devices, FIFOs, directories, files
// past a limit, deep JSON, a full disk, target names too long for a file name.
// Every one is refused (or written) with one line, quickly, and a file that
// was good before a failed write is still good after it.
#include "app/common/atomic_file_writer.h"
#include "app/common/checked_file_reader.h"
#include "app/import/session_importer.h"
#include "app/session/percentile_export.h"
#include "app/session/session_file.h"
#include "app/sweep/load_spec_builder.h"
#include "hostile_files.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace loadscope;
using namespace loadscope::app;

namespace {

QByteArray readBack(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

void checkOneLine(const Error& error, const QString& expected) {
    const QString text = error.toString();
    QVERIFY2(text.contains(expected), qPrintable(text));
    QVERIFY2(!text.contains(QLatin1Char('\n')), qPrintable(text));
}

} // namespace

class TestFileSafety : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_fifo = test::makeFifo(m_dir);
    }

    void readerRefusesWhatIsNotARegularFile_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero")
                                   << QStringLiteral("is a character device, not a regular file");
        QTest::newRow("/dev/null") << QStringLiteral("/dev/null")
                                   << QStringLiteral("is a character device, not a regular file");
        QTest::newRow("FIFO") << m_fifo
                              << QStringLiteral("is a FIFO (named pipe), not a regular file");
        QTest::newRow("directory")
            << m_dir.path() << QStringLiteral("is a directory, not a regular file");
        QTest::newRow("missing") << m_dir.filePath(QStringLiteral("missing"))
                                 << QStringLiteral("cannot be read: no such file or directory");
    }
    void readerRefusesWhatIsNotARegularFile() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        const Result<QByteArray> read = readRegularFile(path, kMaxSessionFileBytes);
        QVERIFY(!read);
        QCOMPARE(read.error().code, ErrorCode::Io);
        QCOMPARE(read.error().file, path);
        QCOMPARE(read.error().message, expected);
    }

    // The cap holds at the byte: exactly the cap is read, one more is refused.
    void readerCapsEveryRead() {
        const QString path = m_dir.filePath(QStringLiteral("thousand"));
        writeBytes(path, QByteArray(1000, 'x'));
        const Result<QByteArray> whole = readRegularFile(path, 1000);
        QVERIFY(whole);
        QCOMPARE(*whole, QByteArray(1000, 'x'));
        const Result<QByteArray> refused = readRegularFile(path, 999);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Format);
        QCOMPARE(refused.error().message, QStringLiteral("is larger than 999 bytes"));
        QCOMPARE(byteSizeText(kMaxSessionFileBytes), QStringLiteral("256 MiB"));
        QCOMPARE(byteSizeText(kMaxBodyFileBytes), QStringLiteral("1 GiB"));
    }

    // A large file is read in parts on several threads: every byte lands
    // where it belongs, whether the size is a multiple of the parts or not,
    // and the cap still holds at the byte.
    void largeFileReadsWhole_data() {
        QTest::addColumn<qint64>("size");
        QTest::newRow("40 MiB") << (qint64(40) << 20);
        QTest::newRow("40 MiB and 3 bytes") << (qint64(40) << 20) + 3;
    }
    void largeFileReadsWhole() {
        QFETCH(qint64, size);
        QByteArray bytes(qsizetype(size), Qt::Uninitialized);
        for (qsizetype i = 0; i < bytes.size(); ++i)
            bytes[i] = char((i * 7 + i / 4093) & 0xff); // no run repeats at a power of two
        const QString path = m_dir.filePath(QStringLiteral("large"));
        writeBytes(path, bytes);
        const Result<QByteArray> read = readRegularFile(path, size);
        QVERIFY(read);
        QVERIFY(*read == bytes);
        const Result<QByteArray> refused = readRegularFile(path, size - 1);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Format);
    }

    // What each reader of a user's file gets: sessions (report, export, sweep,
    // the window), request bodies (-p, a target's body file), imported reports.
    void everyReaderRefusesDevicesFifosAndOversizedFiles_data() {
        QTest::addColumn<QString>("reader");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        const std::pair<const char*, qint64> readers[] = {{"session", kMaxSessionFileBytes},
                                                          {"body", kMaxBodyFileBytes},
                                                          {"import", kMaxReportFileBytes}};
        for (const auto& [reader, limit] : readers) {
            const QString name = QString::fromLatin1(reader);
            QTest::addRow("%s /dev/zero", reader)
                << name << QStringLiteral("/dev/zero") << QStringLiteral("is a character device");
            QTest::addRow("%s FIFO", reader) << name << m_fifo << QStringLiteral("is a FIFO");
            const QString huge =
                test::makeSparseFile(m_dir, QStringLiteral("huge-") + name, limit + 1);
            QTest::addRow("%s over its limit", reader)
                << name << huge << QStringLiteral("is larger than ") + byteSizeText(limit);
        }
    }
    void everyReaderRefusesDevicesFifosAndOversizedFiles() {
        QFETCH(QString, reader);
        QFETCH(QString, path);
        QFETCH(QString, expected);
        const Error error = refusalOf(reader, path);
        checkOneLine(error, expected);
        QVERIFY2(error.toString().contains(path), qPrintable(error.toString()));
    }

    // Qt's parser stops at 1024 levels; deeper input is one line, not a crash.
    void deeplyNestedJsonIsRefused_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("arrays 100000 deep") << QByteArray(100000, '[');
        QByteArray objects = "{\"format\": \"loadscope-session\", \"notes\": ";
        for (int i = 0; i < 5000; ++i)
            objects += "{\"a\": ";
        objects += "1" + QByteArray(5000, '}') + "}";
        QTest::newRow("objects 5000 deep in a session") << objects;
    }
    void deeplyNestedJsonIsRefused() {
        QFETCH(QByteArray, bytes);
        const Result<Session> parsed = parseSession(bytes, QStringLiteral("deep.loadscope"));
        QVERIFY(!parsed);
        QCOMPARE(parsed.error().code, ErrorCode::Format);
        checkOneLine(parsed.error(), QStringLiteral("deep.loadscope: is not valid JSON"));
    }

    void writerReplacesTheFileWhole() {
        const QString path = m_dir.filePath(QStringLiteral("replaced.csv"));
        QVERIFY(writeFileAtomically(path, "old\n"));
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0640) == 0);
        QVERIFY(writeFileAtomically(path, "new\n"));
        QCOMPARE(readBack(path), QByteArray("new\n"));
        QCOMPARE(QFileInfo(path).permissions() & (QFile::ReadGroup | QFile::ReadOther),
                 QFile::ReadGroup);
        QCOMPARE(temporaryFilesIn(m_dir.path()), QStringList());
    }

    // A write that fails half-way leaves the old file as it was, and no
    // temporary file beside it.
    void failedWriteKeepsTheOldFile() {
        const QString path = m_dir.filePath(QStringLiteral("kept.csv"));
        QVERIFY(writeFileAtomically(path, "the good file\n"));
        const Result<void> failed = test::withFileSizeLimit(
            4096, [&] { return writeFileAtomically(path, QByteArray(64 * 1024, 'y')); });
        QVERIFY(!failed);
        QCOMPARE(failed.error().code, ErrorCode::Io);
        QCOMPARE(failed.error().toString(),
                 path + QStringLiteral(": cannot be written: file too large"));
        QCOMPARE(readBack(path), QByteArray("the good file\n"));
        QCOMPARE(temporaryFilesIn(m_dir.path()), QStringList());
    }

    // /dev/full fails every write with ENOSPC, as a full disk does; the device
    // is written in place, never renamed over.
    void fullDeviceSaysNoSpaceLeft() {
        const Result<void> failed = writeFileAtomically(QStringLiteral("/dev/full"), "x\n");
        QVERIFY(!failed);
        QCOMPARE(failed.error().toString(),
                 QStringLiteral("/dev/full: cannot be written: no space left on device"));
        struct stat status {};
        QCOMPARE(::stat("/dev/full", &status), 0);
        QVERIFY(S_ISCHR(status.st_mode));

        const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        const Result<void> direct = writeAllToDescriptor(fd, "x");
        ::close(fd);
        QVERIFY(!direct);
        QCOMPARE(direct.error().message,
                 QStringLiteral("cannot be written: no space left on device"));

        FILE* stream = std::fopen("/dev/full", "w");
        QVERIFY(stream);
        std::fputs("a report\n", stream);
        const Result<void> flushed = flushStream(stream, QStringLiteral("standard output"));
        std::fclose(stream);
        QVERIFY(!flushed);
        QCOMPARE(flushed.error().message,
                 QStringLiteral("cannot write to standard output: no space left on device"));
    }

    void writerRefusesADirectory() {
        const Result<void> refused = writeFileAtomically(m_dir.path(), "x");
        QVERIFY(!refused);
        QCOMPARE(refused.error().message, QStringLiteral("is a directory"));
        QVERIFY(QFileInfo(m_dir.path()).isDir());
    }

    // A 300-character name made "File name too long" of the whole export.
    void longTargetNamesGiveShortUniqueFileNames() {
        Session session = test::twoTargetSession();
        const QString longName = QString(300, QLatin1Char('a'));
        session.targets[0].name = longName;
        session.targets[1].name = longName + QStringLiteral("b"); // same first 80 characters
        const auto files = percentileDistributionFiles(session);
        QCOMPARE(files.size(), size_t(4));
        std::set<QString> names;
        for (const auto& file : files) {
            QVERIFY2(QFile::encodeName(file.fileName).size() <= 255, qPrintable(file.fileName));
            QVERIFY2(file.fileName.startsWith(QString(80, QLatin1Char('a'))),
                     qPrintable(file.fileName));
            names.insert(file.fileName);
        }
        QCOMPARE(names.size(), files.size());

        const QString directory = m_dir.filePath(QStringLiteral("hgrm"));
        const auto written = writePercentileDistributions(session, directory);
        QVERIFY2(written, written ? "" : qPrintable(written.error().toString()));
        QCOMPARE(written->size(), 4);
        QCOMPARE(QDir(directory).entryList(QDir::Files).size(), 4);
    }

private:
    static Error refusalOf(const QString& reader, const QString& path) {
        if (reader == QLatin1String("session")) {
            const Result<Session> loaded = openSession(path);
            return loaded ? Error{} : loaded.error();
        }
        if (reader == QLatin1String("body")) {
            Session session = test::twoTargetSession();
            session.targets[0].http.bodyFile = path;
            const auto draft = draftLoadSpec(session.targets[0], 1, session.plan);
            return draft ? Error{} : draft.error();
        }
        const auto files = readImportFiles({path});
        return files ? Error{} : files.error();
    }

    static QStringList temporaryFilesIn(const QString& directory) {
        return QDir(directory).entryList({QStringLiteral(".loadscope-*")},
                                         QDir::Files | QDir::Hidden);
    }

    QTemporaryDir m_dir;
    QString m_fifo;
};

QTEST_GUILESS_MAIN(TestFileSafety)
#include "tst_file_safety.moc"
