#include "ui/shell/target_field_checks.h"

#include "app/sweep/load_spec_builder.h"
#include "engine/http_protocol.h"
#include "engine/memcache_protocol.h"

namespace loadscope::ui {

QString urlProblem(const QString& url) {
    if (url.trimmed().isEmpty())
        return QObject::tr("Enter the URL to load, e.g. http://127.0.0.1:8080/");
    std::string error;
    if (!engine::parseHttpUrl(url.trimmed().toStdString(), &error))
        return QString::fromStdString(error);
    return {};
}

QString addressProblem(const QString& address, bool required) {
    if (address.trimmed().isEmpty())
        return required ? QObject::tr("Enter HOST:PORT, e.g. 127.0.0.1:11211") : QString();
    QString error;
    if (!app::parseEndpoint(address, &error))
        return error;
    return {};
}

QString keyPatternProblem(const QString& pattern) {
    engine::KeyPattern set{};
    engine::KeyPattern get{};
    if (!engine::parseMemcacheKeyPatterns(pattern.trimmed().toUpper().toStdString(), set, get))
        return QObject::tr("Use SET:GET with R (random), S (sequential) or G (Gaussian), "
                           "e.g. R:R");
    return {};
}

QString headerNameProblem(const QString& name) {
    if (name.trimmed().isEmpty())
        return QObject::tr("A header needs a name");
    for (const QChar c : name.trimmed()) {
        if (c.unicode() <= 0x20 || c.unicode() >= 0x7f || c == QLatin1Char(':'))
            return QObject::tr("Header name '%1' may not hold spaces, colons or non-ASCII")
                .arg(name.trimmed());
    }
    return {};
}

QString unsignedNumberProblem(const QString& text) {
    bool ok = false;
    text.trimmed().toULongLong(&ok);
    return ok ? QString() : QObject::tr("'%1' is not a whole number of 0 or more").arg(text);
}

QString targetProblem(const app::Target& target) {
    if (target.protocol == app::TargetProtocol::Http)
        return {}; // its fields are checked one by one; a whole check would read the body file
    // A duration-limited plan: whether a stream may run by request count is a
    // question for the sweep page, not for the target.
    app::SweepPlan plan;
    plan.limit = app::PointLimit::Duration;
    QString error;
    if (!app::draftLoadSpec(target, 1, plan, &error))
        return error;
    return {};
}

} // namespace loadscope::ui
