#pragma once

#include <QByteArray>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loadscope::cli {

// Prints "<command>: <message>" on stderr, one line.
void printError(const QString& command, const QString& message);

// Parses `arguments` with `parser`; on --help prints help and returns ExitOk, on
// an error prints one line and returns ExitUsage; nullopt means "go on".
std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments);

// Number parsing with a one-line error naming the option.
std::optional<uint64_t> parseCount(const QString& option, const QString& text, uint64_t minimum,
                                   uint64_t maximum, QString* error);
// Seconds as a decimal number ("2", "0.5") or with a unit ("250ms", "2s", "1m").
std::optional<double> parseSeconds(const QString& option, const QString& text, QString* error);
// "0,2-3" -> {0, 2, 3}; every CPU must exist on this machine.
std::optional<std::vector<int>> parseCpuList(const QString& text, QString* error);
// "HOST:PORT" or "[v6]:PORT".
struct HostPort {
    std::string host;
    uint16_t port = 0;
};
std::optional<HostPort> parseHostPort(const QString& text, QString* error);

// Writes `bytes` to PATH, or to stdout when PATH is "-". One-line error on failure.
bool writeOutput(const QString& path, const QByteArray& bytes, QString* error);

// Raises the soft open-file limit towards the hard one so that `needed`
// descriptors fit; returns false (with `error`) when even the hard limit is too low.
bool ensureFileLimit(uint64_t needed, QString* error);

// Worker threads default to the number of cores.
uint32_t defaultThreadCount();

} // namespace loadscope::cli
