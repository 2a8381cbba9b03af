// Placeholder: implemented with the embedded servers.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runServeCommand(const QStringList&) { std::fputs("loadscope-cli serve: not built yet\n", stderr); return ExitInternal; }
