// Placeholder: implemented with the importers.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runImportCommand(const QStringList&) { std::fputs("loadscope-cli import: not built yet\n", stderr); return ExitInternal; }
