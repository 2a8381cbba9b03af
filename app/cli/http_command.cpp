// Placeholder: implemented with the load engine.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runHttpCommand(const QStringList&) { std::fputs("loadscope-cli http: not built yet\n", stderr); return ExitInternal; }
