// Placeholder: implemented with the memcached workload.
#include "app/cli/commands.h"
#include <cstdio>
int loadscope::cli::runMemcacheCommand(const QStringList&) { std::fputs("loadscope-cli memcache: not built yet\n", stderr); return ExitInternal; }
