#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
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

// A stored histogram taken out of a result's text, decoded.
struct CutHistogram {
    bool inOperations = false; // in "operations", not "latency"
    QString name;              // the distribution's key there ("total", an operation's name)
    QByteArray bytes;
};

// A result's text with the base64 of its stored histograms taken out: those
// strings are some 85 % of a result's bytes, and Qt's parser scanned each
// byte of them, then the reader copied them to UTF-16 to decode them. Here
// each is decoded straight from the file's bytes, and the text handed to Qt
// holds "" in its place.
struct ResultWithoutHistograms {
    QByteArray json;
    std::vector<CutHistogram> histograms;
    // The result's own keys as written, views into its text: when the
    // schema knows them all, the result keeps no unknown fields, and no
    // key of the parsed object need be copied to look it up.
    std::vector<QByteArrayView> keys;
};

// Cuts the value of every "histogram" key of an object in the result's
// "latency" or "operations" that is canonical base64 (decodeCanonicalBase64).
// Nullopt, and the text is to be parsed as it is, when the result holds a
// backslash (the scan knows strings only without escapes) or repeats a key
// it would cut under: then which copy Qt keeps would decide which histogram
// is read. The scan does not judge the JSON: only base64 inside a string is
// removed, so the text handed to Qt parses exactly when the result does.
std::optional<ResultWithoutHistograms> cutHistograms(QByteArrayView result);

} // namespace loadscope::app
