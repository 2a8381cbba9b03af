#pragma once

#include "app/session/target.h"

#include <QString>

// Checks of single editor fields, each returning the one line to show next to
// the field, or an empty string when the text is usable. They use the same
// parsers the sweep uses, so a field the editor accepts never fails the run
// for its syntax.
namespace loadscope::ui {

QString urlProblem(const QString& url);
// `required`: memcache and tcp need an address; for http it only redirects
// the connections, so it may stay empty.
QString addressProblem(const QString& address, bool required);
QString keyPatternProblem(const QString& pattern);
// A header name is an HTTP token: no spaces, no colon, not empty.
QString headerNameProblem(const QString& name);
// A header value holds no CR, LF, NUL or other control character but a tab.
QString headerValueProblem(const QString& name, const QString& value);
// "0", "10000000": a whole number that fits 64 bits, no sign.
QString unsignedNumberProblem(const QString& text);

// The server CPU fields: empty (found from the port) or a PID / an absolute
// cgroup directory.
QString serverPidProblem(const QString& text);
QString serverCgroupProblem(const QString& path);
// A warning, not an error: the process or cgroup the target names is not on
// this machine now, so a sweep here would have no server CPU for it (it may be
// started later, or the session is run elsewhere). Only stats /proc and the
// cgroup's files.
QString serverCpuWarning(const app::Target& target);

// What the sweep would say about the whole target (key too long for
// memcached, a ratio sending nothing ...), or an empty string. Reads no files
// and resolves no names: safe on every keystroke.
QString targetProblem(const app::Target& target);

} // namespace loadscope::ui
