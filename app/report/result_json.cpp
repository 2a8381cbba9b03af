#include "app/report/result_json.h"

#include "app/session/result_schema.h"

#include <QJsonArray>

namespace loadscope::app {

namespace {

// Writes the schema's fields that `keyOf` names into a CLI JSON object.
template <typename KeyOf> QJsonObject schemaJson(const PointResult& result, KeyOf keyOf) {
    QJsonObject o;
    for (const ResultField& field : resultSchema()) {
        const QString key = keyOf(field);
        if (key.isEmpty())
            continue;
        const FieldValue value = field.value(result);
        if (field.omitInCli && std::holds_alternative<std::monostate>(value))
            continue;
        insertJsonPath(o, key, fieldJson(field, value));
    }
    return o;
}

QByteArray csvField(const QString& text) {
    QByteArray bytes = text.toUtf8();
    if (bytes.contains(',') || bytes.contains('"') || bytes.contains('\n') ||
        bytes.contains('\r')) {
        bytes.replace("\"", "\"\"");
        return '"' + bytes + '"';
    }
    return bytes;
}

void flatten(const QString& prefix, const QJsonValue& value, QStringList& names,
             QStringList& values) {
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            flatten(prefix.isEmpty() ? it.key() : prefix + QLatin1Char('_') + it.key(), it.value(),
                    names, values);
        return;
    }
    if (value.isArray()) {
        QStringList parts;
        for (const QJsonValue& item : value.toArray()) {
            // A list of objects (net_counters' namespaces) has no one-cell form: left out; the
            // figures it adds up to are columns of their own.
            if (item.isObject())
                return;
            parts << item.toVariant().toString();
        }
        names << prefix;
        values << parts.join(QLatin1Char(' '));
        return;
    }
    names << prefix;
    if (value.isDouble())
        values << QString::number(value.toDouble(), 'g', 15);
    else if (value.isBool())
        values << (value.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    else
        values << value.toString();
}

} // namespace

QJsonObject cliResultJson(const PointResult& result, const CliResultContext& context) {
    QJsonObject o = schemaJson(
        result, [&context](const ResultField& field) { return field.cliKey(context.protocol); });
    switch (context.protocol) {
    case TargetProtocol::Http:
        o[QStringLiteral("url")] = context.url;
        o[QStringLiteral("pipeline")] = double(context.pipeline);
        break;
    case TargetProtocol::Memcache:
        if (context.memcache)
            addMemcacheSetupJson(o, *context.memcache);
        break;
    case TargetProtocol::TcpRr:
    case TargetProtocol::TcpStream:
        if (context.netperf)
            addNetperfSetupJson(o, *context.netperf);
        break;
    }
    return o;
}

QByteArray jsonToCsv(const QJsonObject& object) {
    QStringList names;
    QStringList values;
    flatten(QString(), object, names, values);
    QByteArray header;
    QByteArray row;
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (i) {
            header += ',';
            row += ',';
        }
        header += csvField(names.at(i));
        row += csvField(values.at(i));
    }
    return header + "\r\n" + row + "\r\n";
}

} // namespace loadscope::app
