#include "app/session/level_naming.h"

#include <QCoreApplication>
#include <algorithm>

namespace loadscope::app {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("loadscope::app::LevelNaming", text);
}

} // namespace

LevelNaming::LevelNaming(const std::vector<const Target*>& targets) {
    bool first = true;
    for (const Target* target : targets) {
        const int streams = streamsPerConnection(*target);
        m_connections = m_connections || streams > 1;
        if (first)
            m_commonStreams = streams;
        else if (m_commonStreams != streams)
            m_commonStreams.reset();
        first = false;
    }
}

int LevelNaming::streamsPerConnection(const Target& target) {
    const bool http2 = target.protocol == TargetProtocol::Http && target.http.http2;
    return http2 ? std::max(1, target.http.maxConcurrentStreams) : 1;
}

QString LevelNaming::axisTitle() const {
    if (!m_connections)
        return tr("Concurrency");
    if (m_commonStreams)
        return tr("Connections (× %1 streams = concurrency %1 × connections)")
            .arg(*m_commonStreams);
    return tr("Connections (streams per target in its name)");
}

QString LevelNaming::pickerLabel() const {
    return m_connections ? tr("&Connections:") : tr("&Concurrency:");
}

QString LevelNaming::levelText(int level) const {
    if (!m_connections)
        return QStringLiteral("c=%1").arg(level);
    if (m_commonStreams)
        return tr("%1 connections × %2 streams").arg(level).arg(*m_commonStreams);
    return tr("%1 connections").arg(level);
}

QString LevelNaming::targetName(const Target& target) const {
    if (!m_connections || m_commonStreams)
        return target.displayName();
    const int streams = streamsPerConnection(target);
    return streams > 1 ? tr("%1 (× %2 streams)").arg(target.displayName()).arg(streams)
                       : tr("%1 (1 per connection)").arg(target.displayName());
}

} // namespace loadscope::app
