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

// Every command runCli() knows, in the order its usage lists them; and the
// words a command takes next (lab's subcommands, serve's kinds), each with its
// own --help. The man page walks both (man_page.h).
QStringList commandNames();
QStringList subcommandNames(const QString& command);

// Each sub-command gets its own arguments, argv[0] being "loadscope-cli <command>".
int runHttpCommand(const QStringList& arguments, const CliIo& io = {});
int runMemcacheCommand(const QStringList& arguments, const CliIo& io = {});
int runTcpRrCommand(const QStringList& arguments, const CliIo& io = {});
int runTcpStreamCommand(const QStringList& arguments, const CliIo& io = {});
int runSweepCommand(const QStringList& arguments, const CliIo& io = {});
int runServeCommand(const QStringList& arguments);
// The servers `serve` runs: http, echo, sink, proxy.
QStringList serveKinds();
int runReportCommand(const QStringList& arguments);
int runExportCommand(const QStringList& arguments);
int runImportCommand(const QStringList& arguments);
// lab check | lab sandbox | lab agent
int runLabCommand(const QStringList& arguments, const CliIo& io = {});
QStringList labSubcommands();
int runLabAgentCommand(const QStringList& arguments, const CliIo& io = {});
// hosts check
int runHostsCommand(const QStringList& arguments, const CliIo& io = {});

} // namespace loadscope::cli
