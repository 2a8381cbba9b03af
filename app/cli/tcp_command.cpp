// Placeholder: implemented with the TCP request/response workload.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runTcpRrCommand(const QStringList&) { std::fputs("loadscope-cli tcp-rr: not built yet\n", stderr); return ExitInternal; }
int loadscope::cli::runTcpStreamCommand(const QStringList&) { std::fputs("loadscope-cli tcp-stream: not built yet\n", stderr); return ExitInternal; }
