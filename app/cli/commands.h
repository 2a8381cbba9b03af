#pragma once

#include <QStringList>

namespace loadscope::cli {

// Exit statuses shared by every sub-command.
enum ExitCode : int {
    ExitOk = 0,
    ExitInternal = 1,
    ExitUsage = 2,
    ExitUnreachable = 3,
};

// Each sub-command gets its own arguments, argv[0] being "loadscope-cli <command>".
int runHttpCommand(const QStringList& arguments);
int runServeCommand(const QStringList& arguments);
int runMemcacheCommand(const QStringList& arguments);
int runTcpRrCommand(const QStringList& arguments);
int runTcpStreamCommand(const QStringList& arguments);
int runSweepCommand(const QStringList& arguments);
int runReportCommand(const QStringList& arguments);
int runExportCommand(const QStringList& arguments);
int runImportCommand(const QStringList& arguments);

} // namespace loadscope::cli
