#pragma once

#include <QStringList>
#include <cstdio>

namespace loadscope::cli {

// Exit statuses shared by every sub-command.
enum ExitCode : int {
    ExitOk = 0,
    ExitInternal = 1,
    ExitUsage = 2,
    ExitUnreachable = 3,
};

// Where a command writes: the report and machine output to `out`, progress
// and errors to `err`. The executable passes stdout and stderr; a test passes
// streams of its own and runs the command in-process.
struct CliIo {
    FILE* out = stdout;
    FILE* err = stderr;
};

// `arguments` as main() gets them without the program: the command name
// first ("http", "memcache", ...), then its options. Unknown commands, --help
// and --version included; returns the exit status.
int runCli(const QStringList& arguments, const CliIo& io = {});

// Each sub-command gets its own arguments, argv[0] being "loadscope-cli <command>".
int runHttpCommand(const QStringList& arguments, const CliIo& io = {});
int runMemcacheCommand(const QStringList& arguments, const CliIo& io = {});
int runTcpRrCommand(const QStringList& arguments, const CliIo& io = {});
int runTcpStreamCommand(const QStringList& arguments, const CliIo& io = {});
int runUdpRrCommand(const QStringList& arguments, const CliIo& io = {});
int runUdpStreamCommand(const QStringList& arguments, const CliIo& io = {});
int runSweepCommand(const QStringList& arguments, const CliIo& io = {});
int runServeCommand(const QStringList& arguments);
int runReportCommand(const QStringList& arguments);
int runExportCommand(const QStringList& arguments);
int runImportCommand(const QStringList& arguments);
// lab check | lab sandbox | lab agent
int runLabCommand(const QStringList& arguments, const CliIo& io = {});
int runLabAgentCommand(const QStringList& arguments, const CliIo& io = {});

} // namespace loadscope::cli
