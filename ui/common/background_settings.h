#pragma once

#include <QString>
#include <QVariant>

// Settings the window writes as the user works (recent files, the last
// directory), stored off the GUI thread: each QSettings write ended in a
// sync to disk that took the GUI thread 10-40 ms on a busy machine, twice
// per opened session. This process sees a value at once (value() keeps it
// until it is stored); the file gets them in the order they were set.
namespace loadscope::ui::settings {

// The value set last in this process, else the stored one.
QVariant value(const QString& key, const QVariant& fallback = {});
// Remembers `value` now and stores it on a worker thread.
void setValue(const QString& key, const QVariant& value);
// Waits until every value set so far is stored (tests; the end of the program).
void waitForWrites();

} // namespace loadscope::ui::settings
