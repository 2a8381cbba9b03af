#pragma once

#include "app/cli/commands.h"
#include "app/common/result.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

// The flag syntax every command shares. The rules a value must obey beyond
// its syntax live in app/ (app/session/target_rules.h, the spec builder).
namespace loadscope::cli {

// Prints "<command>: <message>" on io.err, one line.
void printError(const CliIo& io, const QString& command, const QString& message);

// One such line per result the opened session set aside ("results[12] set
// aside: durationSeconds is -0.002, expected above 0"); the command goes on.
void printSetAside(const CliIo& io, const QString& command, const app::Session& session);

// The same on the process's stderr, for the commands that print only there.
inline void printError(const QString& command, const QString& message) {
    printError(CliIo{}, command, message);
}

// Parses `arguments` with `parser`; on --help prints help and returns ExitOk, on
// an error prints one line and returns ExitUsage; nullopt means "go on".
std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments,
                               const CliIo& io);
inline std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments) {
    return parseOrExit(parser, arguments, CliIo{});
}

// The exit status for an error of the builder or the run: ExitUnreachable,
// ExitInternal or ExitUsage.
int exitCodeFor(const app::Error& error);

// Number parsing with a one-line error naming the option.
app::Result<uint64_t> parseCount(const QString& option, const QString& text, uint64_t minimum,
                                 uint64_t maximum);
// Seconds as a decimal number ("2", "0.5") or with a unit ("250ms", "2s", "1m").
app::Result<double> parseSeconds(const QString& option, const QString& text);
// The same, more than 0.
app::Result<double> parsePositiveSeconds(const QString& option, const QString& text);
// --cpus LIST: the list rule of app/, and every CPU on this machine.
app::Result<std::vector<int>> parseCpusOption(const QString& text);

// Writes `bytes` to PATH, or to io.out when PATH is "-". One-line error on failure.
app::Result<void> writeOutput(const QString& path, const QByteArray& bytes, const CliIo& io);

// Raises the soft open-file limit towards the hard one so that `needed`
// descriptors fit; an error when even the hard limit is too low.
app::Result<void> ensureFileLimit(uint64_t needed);

} // namespace loadscope::cli
