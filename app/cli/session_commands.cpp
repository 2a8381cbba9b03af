// Placeholder: implemented with sessions.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runSweepCommand(const QStringList&) { std::fputs("loadscope-cli sweep: not built yet\n", stderr); return ExitInternal; }
int loadscope::cli::runReportCommand(const QStringList&) { std::fputs("loadscope-cli report: not built yet\n", stderr); return ExitInternal; }
int loadscope::cli::runExportCommand(const QStringList&) { std::fputs("loadscope-cli export: not built yet\n", stderr); return ExitInternal; }
