#pragma once

#include "app/session/target.h"

#include <QString>
#include <optional>
#include <vector>

namespace loadscope::app {

// What a sweep level of the compared targets is, said the same way by the charts, the level
// picker and the table. A level is always the sweep's own number, the connections the run
// opened; it is never multiplied into another figure. When every compared target has one
// request in flight per connection that number is the concurrency and is called so. When an
// HTTP/2 target keeps N streams on each connection the level is called "Connections", and the
// streams are said beside it: once for all when the targets agree on N, otherwise on each
// target's name, so that no label states a concurrency some target did not run at.
class LevelNaming {
public:
    LevelNaming() = default; // no targets: the level is the concurrency
    explicit LevelNaming(const std::vector<const Target*>& targets);

    // HTTP/2's streams per connection (h2load -m); 1 for every other target.
    static int streamsPerConnection(const Target& target);

    // False: the level is the concurrency of every target.
    bool namesConnections() const { return m_connections; }
    // "Concurrency"; "Connections (× 10 streams = concurrency 10 × connections)";
    // "Connections (streams per target in its name)".
    QString axisTitle() const;
    // The picker's label, with its mnemonic: "&Concurrency:" or "&Connections:".
    QString pickerLabel() const;
    // One level: "c=10", "10 connections × 10 streams", "10 connections".
    QString levelText(int level) const;
    // A target's name as the legends and the table show it: with " (× 10 streams)" or
    // " (1 per connection)" when the targets' streams differ, plain otherwise.
    QString targetName(const Target& target) const;

private:
    bool m_connections = false;
    std::optional<int> m_commonStreams; // when every target has the same
};

} // namespace loadscope::app
