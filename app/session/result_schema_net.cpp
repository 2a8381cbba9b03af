// The result fields of the network stack's counters (net_counters.h): the window per namespace
// in the session file ("netCounters", only when measured, its zero counters left out), the
// point's totals as results-CSV columns and `--json`'s "net_counters" object with every
// namespace and the notes. Added after the first release: their CSV columns come last.
#include "app/session/result_schema_builder.h"

#include <QJsonArray>
#include <QJsonObject>

namespace loadscope::app::schema_detail {

namespace {

// Each counter once: its name in the session file and in the CLI JSON, and where it lives.
struct Counter {
    const char* sessionKey;
    const char* cliKey;
    const char* unit;
    uint64_t NamespaceCounters::*member;
    bool conntrack; // carried only where the namespace has conntrack's statistics
};

constexpr Counter kCounters[] = {
    {"tcpRetransmits", "tcp_retransmits", "segments", &NamespaceCounters::tcpRetransmits, false},
    {"synRetransmits", "syn_retransmits", "segments", &NamespaceCounters::synRetransmits, false},
    {"listenOverflows", "listen_overflows", "connections", &NamespaceCounters::listenOverflows,
     false},
    {"listenDrops", "listen_drops", "connections", &NamespaceCounters::listenDrops, false},
    {"tcpTimeouts", "tcp_timeouts", "timeouts", &NamespaceCounters::tcpTimeouts, false},
    {"resetsSent", "resets_sent", "segments", &NamespaceCounters::resetsSent, false},
    {"establishedResets", "established_resets", "connections",
     &NamespaceCounters::establishedResets, false},
    {"conntrackInsertFailed", "conntrack_insert_failed", "entries",
     &NamespaceCounters::conntrackInsertFailed, true},
    {"conntrackDrop", "conntrack_drop", "packets", &NamespaceCounters::conntrackDrop, true},
    {"conntrackEarlyDrop", "conntrack_early_drop", "entries",
     &NamespaceCounters::conntrackEarlyDrop, true},
    {"conntrackInvalid", "conntrack_invalid", "packets", &NamespaceCounters::conntrackInvalid,
     true},
};

QJsonArray rolesJson(const QStringList& roles) {
    QJsonArray array;
    for (const QString& role : roles)
        array.append(role);
    return array;
}

// The window as saved: a namespace's counters only when not 0, so that a point whose stack
// lost nothing costs its file little.
QJsonObject sessionJson(const NetCounterWindow& w) {
    QJsonArray namespaces;
    for (const NamespaceCounters& n : w.namespaces) {
        QJsonObject o{{QStringLiteral("roles"), rolesJson(n.roles)},
                      {QStringLiteral("netns"), double(n.netns)}};
        for (const Counter& c : kCounters) {
            if (n.*c.member > 0)
                o.insert(QLatin1String(c.sessionKey), double(n.*c.member));
        }
        if (n.conntrack)
            o.insert(QStringLiteral("conntrack"), true);
        QJsonObject links;
        for (const auto& [name, drops] : n.linkDrops)
            links.insert(name, QJsonObject{{QStringLiteral("received"), double(drops.received)},
                                           {QStringLiteral("sent"), double(drops.sent)}});
        if (!links.isEmpty())
            o.insert(QStringLiteral("linkDrops"), links);
        namespaces.append(o);
    }
    QJsonObject json{{QStringLiteral("namespaces"), namespaces}};
    if (w.softnet)
        json.insert(QStringLiteral("softnet"),
                    QJsonObject{{QStringLiteral("dropped"), double(w.softnet->dropped)},
                                {QStringLiteral("timeSqueeze"), double(w.softnet->timeSqueeze)}});
    return json;
}

void readSessionJson(const JsonReader& j, QStringView k, PointResult& r) {
    const auto net = j.optionalObject(k);
    if (!net)
        return;
    NetCounterWindow w;
    const JsonArrayReader namespaces = net->array(u"namespaces");
    for (qsizetype i = 0; i < namespaces.size() && j.ok(); ++i) {
        const JsonReader o = namespaces.objectAt(i);
        NamespaceCounters n;
        const JsonArrayReader roles = o.array(u"roles");
        for (qsizetype role = 0; role < roles.size() && j.ok(); ++role)
            n.roles << roles.stringAt(role);
        n.netns = o.count(u"netns", 0);
        for (const Counter& c : kCounters)
            n.*c.member = o.count(QString::fromLatin1(c.sessionKey), 0);
        n.conntrack = o.boolean(u"conntrack", false);
        if (const auto links = o.optionalObject(u"linkDrops")) {
            for (const QString& name : links->keys()) {
                const JsonReader link = links->object(name);
                n.linkDrops[name] = {link.count(u"received", 0), link.count(u"sent", 0)};
            }
        }
        w.namespaces.push_back(std::move(n));
    }
    if (const auto softnet = net->optionalObject(u"softnet"))
        w.softnet = SoftnetCounts{softnet->count(u"dropped", 0), softnet->count(u"timeSqueeze", 0)};
    r.net = std::move(w);
}

// `--json`'s namespaces: every counter written, 0 too, and the links that dropped.
QJsonArray cliNamespaces(const NetCounterWindow& w) {
    QJsonArray namespaces;
    for (const NamespaceCounters& n : w.namespaces) {
        QJsonObject o{{QStringLiteral("roles"), rolesJson(n.roles)},
                      {QStringLiteral("netns"), double(n.netns)},
                      {QStringLiteral("link_drops"), double(n.linkDropTotal())}};
        for (const Counter& c : kCounters) {
            if (!c.conntrack || n.conntrack)
                o.insert(QLatin1String(c.cliKey), double(n.*c.member));
        }
        QJsonObject links;
        for (const auto& [name, drops] : n.linkDrops)
            links.insert(name, QJsonObject{{QStringLiteral("received"), double(drops.received)},
                                           {QStringLiteral("sent"), double(drops.sent)}});
        if (!links.isEmpty())
            o.insert(QStringLiteral("links"), links);
        namespaces.append(o);
    }
    return namespaces;
}

void addWindow(ResultSchemaBuilder& b) {
    b.savedWhenSet(
         "net_counters_window", FieldType::Json, "",
         [](const PointResult& r) {
             return r.net ? FieldValue(QJsonValue(sessionJson(*r.net))) : FieldValue();
         },
         "netCounters", readSessionJson)
        .omitInSession = true;
    ResultField& namespaces =
        b.add("net_namespaces", FieldType::Json, "", [](const PointResult& r) {
            return r.net ? FieldValue(QJsonValue(cliNamespaces(*r.net))) : FieldValue();
        });
    namespaces.cliKeys = every("net_counters/namespaces");
    namespaces.omitInCli = true;
}

// The point's totals (NetCounterWindow::pointTotals): a CSV column and a `--json` key each.
void addTotals(ResultSchemaBuilder& b) {
    for (const Counter& c : kCounters) {
        const auto member = c.member;
        const bool conntrack = c.conntrack;
        const QString id = QStringLiteral("net_") + QLatin1String(c.cliKey);
        ResultField& field =
            b.add(id, FieldType::Count, c.unit, [member, conntrack](const PointResult& r) {
                if (!r.net)
                    return FieldValue();
                const NamespaceCounters totals = r.net->pointTotals();
                return conntrack && !totals.conntrack ? FieldValue() : FieldValue(totals.*member);
            });
        field.csvColumn = field.id;
        field.cliKeys =
            every(qPrintable(QStringLiteral("net_counters/") + QLatin1String(c.cliKey)));
        field.omitInCli = true;
    }
    const struct {
        const char* id;
        const char* cli;
        std::optional<uint64_t> (*value)(const NetCounterWindow&);
    } machine[] = {
        {"net_softnet_dropped", "softnet_dropped",
         [](const NetCounterWindow& w) {
             return w.softnet ? std::optional<uint64_t>(w.softnet->dropped) : std::nullopt;
         }},
        {"net_softnet_time_squeeze", "softnet_time_squeeze",
         [](const NetCounterWindow& w) {
             return w.softnet ? std::optional<uint64_t>(w.softnet->timeSqueeze) : std::nullopt;
         }},
        {"net_link_drops", "link_drops",
         [](const NetCounterWindow& w) {
             return std::optional<uint64_t>(w.pointTotals().linkDropTotal());
         }},
    };
    for (const auto& m : machine) {
        const auto value = m.value;
        ResultField& field =
            b.add(m.id, FieldType::Count, "packets", [value](const PointResult& r) {
                const auto v = r.net ? value(*r.net) : std::nullopt;
                return v ? FieldValue(*v) : FieldValue();
            });
        field.csvColumn = field.id;
        field.cliKeys = every(qPrintable(QStringLiteral("net_counters/") + QLatin1String(m.cli)));
        field.omitInCli = true;
    }
    ResultField& notes = b.add("net_notes", FieldType::Text, "", [](const PointResult& r) {
        return r.net ? FieldValue(netCounterMark(r.net)) : FieldValue();
    });
    notes.csvColumn = notes.id;
    notes.cliKeys = every("net_counters/notes");
    notes.omitInCli = true;
}

} // namespace

void addNetCounterFields(ResultSchemaBuilder& b) {
    addTotals(b);
    addWindow(b);
}

} // namespace loadscope::app::schema_detail
