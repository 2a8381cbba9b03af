#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <optional>
#include <vector>

// A session file cut into its results and the rest, so that each result's
// JSON can be parsed on its own thread: one QJsonDocument::fromJson() of a
// whole ten-thousand-result file was the largest single part of opening it,
// and it runs on one core. The format is unchanged: this only finds where the
// top-level "results" array's objects begin and end.
//
// The cut is found by a scan that knows strings, brackets and commas and
// nothing else; it does not judge the JSON. Put back together, the rest and
// the results are the file's bytes exactly, so when the rest and every result
// parse, the file parses to the same values; anything the scan is not sure of
// (no "results" key, a second one, a top-level key with an escape, a result
// that is not an object, nesting near Qt's limit, bytes it does not expect)
// gives nullopt, and the file is parsed whole as before, with the same errors.
namespace loadscope::app {

struct SessionFileSplit {
    // The file with the results array emptied: `"results": [` directly followed by `]`.
    QByteArray rest;
    // Each result object's bytes, in order; views into the file's bytes.
    std::vector<QByteArrayView> results;
};

std::optional<SessionFileSplit> splitSessionFile(QByteArrayView bytes);

} // namespace loadscope::app
