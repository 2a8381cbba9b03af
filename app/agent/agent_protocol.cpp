#include "app/agent/agent_protocol.h"

#include "app/agent/run_result_json.h"
#include "app/common/json_bytes.h"
#include "app/common/printable_text.h"
#include "app/session/json_reader.h"
#include "app/session/session_json.h"
#include "app/session/target_rules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSysInfo>
#include <algorithm>
#include <array>
#include <limits>
#include <unistd.h>

namespace loadscope::app {

namespace {

struct TypeName {
    AgentMessage::Type type;
    const char* name;
};

constexpr std::array<TypeName, 11> kTypeNames{{
    {AgentMessage::Type::Hello, "hello"},
    {AgentMessage::Type::Run, "run"},
    {AgentMessage::Type::Cancel, "cancel"},
    {AgentMessage::Type::Progress, "progress"},
    {AgentMessage::Type::Result, "result"},
    {AgentMessage::Type::Error, "error"},
    {AgentMessage::Type::Ping, "ping"},
    {AgentMessage::Type::Pong, "pong"},
    {AgentMessage::Type::Watch, "watch"},
    {AgentMessage::Type::Unwatch, "unwatch"},
    {AgentMessage::Type::Window, "window"},
}};

// Microseconds since the epoch: exact in a JSON number (below 2^53) for
// another quarter of a million years.
constexpr int64_t kMaxClockUs = JsonReader::kMaxExactInteger;

QString typeName(AgentMessage::Type type) {
    for (const TypeName& entry : kTypeNames) {
        if (entry.type == type)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

// One line: a message quoting a broken line never breaks the reply's framing.
QString oneLine(QString text) {
    text.replace(QLatin1Char('\r'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

QJsonObject serverCpuToJson(const engine::ServerCpuSource& source) {
    QJsonObject json;
    if (source.pid > 0) {
        json.insert(QStringLiteral("pid"), source.pid);
        json.insert(QStringLiteral("children"), source.withChildren);
    }
    if (!source.cgroup.empty())
        json.insert(QStringLiteral("cgroup"), QString::fromStdString(source.cgroup));
    return json;
}

engine::ServerCpuSource serverCpuFromJson(const JsonReader& json) {
    engine::ServerCpuSource source;
    source.pid = int(json.integer(u"pid", 1, kMaxPid, 0));
    source.withChildren = json.boolean(u"children", false);
    const QString cgroup = json.string(u"cgroup", {});
    if (json.ok() && !cgroup.isEmpty() && !checkServerCgroup(cgroup))
        json.failKey(u"cgroup", QStringLiteral("is not an absolute directory path of one line"));
    source.cgroup = cgroup.toStdString();
    return source;
}

} // namespace

AgentMessage clientHello() {
    AgentMessage hello;
    hello.type = AgentMessage::Type::Hello;
    hello.software = QStringLiteral("loadscope " LOADSCOPE_VERSION);
    return hello;
}

AgentMessage agentHello(uint64_t netns) {
    AgentMessage hello = clientHello();
    hello.netns = netns;
    hello.hostName = QSysInfo::machineHostName();
    hello.cpus = int(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    hello.kernel = QSysInfo::kernelVersion();
    return hello;
}

QString versionSkewLine(const QString& agentSoftware) {
    const QString mine = clientHello().software;
    if (agentSoftware.isEmpty() || agentSoftware == mine)
        return {};
    return QStringLiteral("version skew: the agent runs %1, this end %2")
        .arg(printableText(agentSoftware), mine);
}

AgentMessage agentError(uint64_t id, QString message) {
    AgentMessage error;
    error.type = AgentMessage::Type::Error;
    error.id = id;
    error.message = oneLine(std::move(message));
    return error;
}

QByteArray encodeAgentMessage(const AgentMessage& m) {
    QJsonObject json{{QStringLiteral("type"), typeName(m.type)}};
    if (m.type != AgentMessage::Type::Hello)
        json.insert(QStringLiteral("id"), double(m.id));
    switch (m.type) {
    case AgentMessage::Type::Hello:
        json.insert(QStringLiteral("protocol"), m.protocol);
        json.insert(QStringLiteral("software"), m.software);
        if (m.netns)
            json.insert(QStringLiteral("netns"), double(m.netns));
        if (!m.hostName.isEmpty())
            json.insert(QStringLiteral("host"), m.hostName);
        if (m.cpus > 0)
            json.insert(QStringLiteral("cpus"), m.cpus);
        if (!m.kernel.isEmpty())
            json.insert(QStringLiteral("kernel"), m.kernel);
        break;
    case AgentMessage::Type::Run:
        if (m.run) {
            json.insert(QStringLiteral("target"), targetToJson(m.run->target));
            json.insert(QStringLiteral("plan"), sweepPlanToJson(m.run->plan));
            json.insert(QStringLiteral("concurrency"), m.run->concurrency);
            json.insert(QStringLiteral("rate"), m.run->rate);
            json.insert(QStringLiteral("preload"), m.run->preload);
            if (m.run->startAtUs > 0)
                json.insert(QStringLiteral("startAtUs"), double(m.run->startAtUs));
            if (!m.run->allow.isEmpty())
                json.insert(QStringLiteral("allow"), QJsonArray::fromStringList(m.run->allow));
            if (!m.run->serverCpu.empty())
                json.insert(QStringLiteral("serverCpu"), serverCpuToJson(m.run->serverCpu));
        }
        break;
    case AgentMessage::Type::Cancel:
    case AgentMessage::Type::Ping:
    case AgentMessage::Type::Unwatch:
        break;
    case AgentMessage::Type::Pong:
        json.insert(QStringLiteral("clockUs"), double(m.clockUs));
        break;
    case AgentMessage::Type::Watch:
        if (m.watch) {
            if (!m.watch->serverCpu.empty())
                json.insert(QStringLiteral("serverCpu"), serverCpuToJson(m.watch->serverCpu));
            if (!m.watch->process.isEmpty())
                json.insert(QStringLiteral("process"), m.watch->process);
            if (!m.watch->container.isEmpty())
                json.insert(QStringLiteral("container"), m.watch->container);
            if (m.watch->atUs > 0)
                json.insert(QStringLiteral("atUs"), double(m.watch->atUs));
        }
        break;
    case AgentMessage::Type::Window:
        if (m.window) {
            json.insert(QStringLiteral("cpu"), cpuWindowToJson(m.window->cpu));
            json.insert(QStringLiteral("fromUs"), double(m.window->fromUs));
            json.insert(QStringLiteral("toUs"), double(m.window->toUs));
            json.insert(QStringLiteral("server"), oneLine(m.window->server));
        }
        break;
    case AgentMessage::Type::Progress:
        if (m.progress)
            json.insert(QStringLiteral("progress"), progressToJson(*m.progress));
        break;
    case AgentMessage::Type::Result:
        if (m.result)
            json.insert(QStringLiteral("result"), runResultToJson(*m.result));
        if (m.measuredFromUs > 0)
            json.insert(QStringLiteral("measuredFromUs"), double(m.measuredFromUs));
        break;
    case AgentMessage::Type::Error:
        json.insert(QStringLiteral("message"), oneLine(m.message));
        break;
    }
    // Compact JSON escapes every control character: the object is one line.
    return jsonBytes(json, QJsonDocument::Compact) + '\n';
}

Result<AgentMessage> decodeAgentMessage(QByteArrayView line) {
    if (line.endsWith('\n'))
        line.chop(1);
    if (line.size() > kMaxAgentLineBytes)
        return makeError(ErrorCode::Format,
                         QStringLiteral("a line of %1 bytes, above the protocol's %2")
                             .arg(line.size())
                             .arg(kMaxAgentLineBytes));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return makeError(ErrorCode::Format, QStringLiteral("not JSON at byte %1: %2")
                                                .arg(parseError.offset)
                                                .arg(parseError.errorString()));
    if (!document.isObject())
        return makeError(ErrorCode::Format, QStringLiteral("not a JSON object"));
    const JsonReader json(document.object());
    AgentMessage m;
    const QString type = json.string(u"type");
    bool known = false;
    for (const TypeName& entry : kTypeNames) {
        if (type == QLatin1StringView(entry.name)) {
            m.type = entry.type;
            known = true;
        }
    }
    if (json.ok() && !known)
        json.failUnknownValue(u"type", type);
    if (!json.ok())
        return json.error();
    if (m.type != AgentMessage::Type::Hello)
        m.id = json.count(u"id");
    switch (m.type) {
    case AgentMessage::Type::Hello:
        m.protocol = int(json.integer(u"protocol", 1, 1 << 30));
        m.software = oneLine(json.string(u"software", {}));
        m.netns = json.count(u"netns", 0);
        m.hostName = oneLine(json.string(u"host", {}));
        m.cpus = int(json.integer(u"cpus", 0, 1 << 20, 0));
        m.kernel = oneLine(json.string(u"kernel", {}));
        break;
    case AgentMessage::Type::Run: {
        AgentRunRequest run;
        run.target = targetFromJson(json.object(u"target"));
        run.plan = sweepPlanFromJson(json.object(u"plan"));
        run.concurrency = int(json.integer(u"concurrency", 1, kMaxConcurrency));
        run.rate = json.number(u"rate", 0, std::numeric_limits<double>::max(), 0);
        // 0 is the closed loop; any other rate is within the one range.
        if (json.ok() && run.rate != 0 && !checkRate(run.rate))
            json.failKey(u"rate", QStringLiteral("is %1, expected 0 (closed loop) or %2")
                                      .arg(run.rate)
                                      .arg(rateRangeText()));
        run.preload = json.boolean(u"preload", false);
        run.startAtUs = json.integer(u"startAtUs", 0, kMaxClockUs, 0);
        const JsonArrayReader allow = json.array(u"allow", false);
        for (qsizetype i = 0; i < allow.size() && json.ok(); ++i) {
            const QString endpoint = allow.stringAt(i);
            if (json.ok() && !parseEndpoint(endpoint))
                json.fail(allow.pathAt(i), QStringLiteral("is not HOST:PORT"));
            run.allow << endpoint;
        }
        if (const auto serverCpu = json.optionalObject(u"serverCpu"))
            run.serverCpu = serverCpuFromJson(*serverCpu);
        m.run = std::move(run);
        break;
    }
    case AgentMessage::Type::Cancel:
    case AgentMessage::Type::Ping:
    case AgentMessage::Type::Unwatch:
        break;
    case AgentMessage::Type::Pong:
        m.clockUs = json.integer(u"clockUs", 0, kMaxClockUs);
        break;
    case AgentMessage::Type::Watch: {
        AgentWatchRequest watch;
        if (const auto serverCpu = json.optionalObject(u"serverCpu"))
            watch.serverCpu = serverCpuFromJson(*serverCpu);
        watch.process = json.string(u"process", {});
        if (json.ok() && !watch.process.isEmpty() && !checkServerProcessName(watch.process))
            json.failKey(u"process", checkServerProcessName(watch.process).error().message);
        watch.container = json.string(u"container", {});
        if (json.ok() && !watch.container.isEmpty() && !checkContainerName(watch.container))
            json.failKey(u"container", checkContainerName(watch.container).error().message);
        watch.atUs = json.integer(u"atUs", 0, kMaxClockUs, 0);
        m.watch = std::move(watch);
        break;
    }
    case AgentMessage::Type::Window: {
        AgentWindow window;
        window.cpu = cpuWindowFromJson(json.object(u"cpu"));
        window.fromUs = json.integer(u"fromUs", 0, kMaxClockUs);
        window.toUs = json.integer(u"toUs", 0, kMaxClockUs);
        window.server = oneLine(json.string(u"server", {}));
        m.window = std::move(window);
        break;
    }
    case AgentMessage::Type::Progress:
        m.progress =
            std::make_shared<const engine::Progress>(progressFromJson(json.object(u"progress")));
        break;
    case AgentMessage::Type::Result:
        m.result =
            std::make_shared<const engine::RunResult>(runResultFromJson(json.object(u"result")));
        m.measuredFromUs = json.integer(u"measuredFromUs", 0, kMaxClockUs, 0);
        break;
    case AgentMessage::Type::Error:
        m.message = oneLine(json.string(u"message"));
        break;
    }
    return json.result(std::move(m));
}

Result<void> checkAgentProtocol(int clientVersion, const QString& clientSoftware) {
    if (clientVersion == kAgentProtocolVersion)
        return {};
    const QString client =
        clientSoftware.isEmpty() ? QStringLiteral("the client") : printableText(clientSoftware);
    return makeError(ErrorCode::InvalidInput,
                     QStringLiteral("agent protocol version %1 (%2) is not spoken here: this "
                                    "agent, %3, speaks version %4; install the same Loadscope "
                                    "version at both ends")
                         .arg(clientVersion)
                         .arg(client, clientHello().software)
                         .arg(kAgentProtocolVersion));
}

} // namespace loadscope::app
