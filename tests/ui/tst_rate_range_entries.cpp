// One range per quantity: a fixed rate is accepted or refused alike by each
// way it enters, the command line (-R), the window's rate levels, a session
// file's plan and the load agent's run request, at and around the ends of
// the range and far beyond them. And each refusal states the same range.
#include "app/agent/agent_protocol.h"
#include "app/cli/one_shot.h"
#include "app/session/session_json.h"
#include "ui/shell/sweep_plan_text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace loadscope;

namespace {

const QString kRange = QStringLiteral("0.001 to 100000000");

// The rate as text each entry reads: shortest round trip.
QString text(double rate) {
    return QString::number(rate, 'g', 17);
}

app::Result<void> throughCli(double rate) {
    const auto shot = cli::parseHttpOneShot(
        {QStringLiteral("loadscope-cli http"), QStringLiteral("-n"), QStringLiteral("1"),
         QStringLiteral("-R"), text(rate), QStringLiteral("http://127.0.0.1:9/")});
    if (!shot)
        return shot.error();
    return {};
}

app::Result<void> throughWindow(double rate) {
    const auto levels = ui::parseRateLevels(text(rate));
    if (!levels)
        return levels.error();
    return {};
}

app::Result<void> throughSession(double rate) {
    app::Session session;
    session.targets.push_back(app::makeTarget(QStringLiteral("a"), app::DeploymentMode::Host, 0));
    session.plan.levelKind = app::SweepLevelKind::Rate;
    session.plan.rateLevels = {1000};
    QJsonObject json = app::sessionToJson(session);
    QJsonObject plan = json.value(QStringLiteral("plan")).toObject();
    plan.insert(QStringLiteral("rates"), QJsonArray{rate});
    json.insert(QStringLiteral("plan"), plan);
    const auto read = app::sessionFromJson(json);
    if (!read)
        return read.error();
    return {};
}

app::Result<void> throughAgent(double rate) {
    app::AgentRunRequest request;
    request.target = app::makeTarget(QStringLiteral("a"), app::DeploymentMode::Host, 0);
    request.rate = rate;
    app::AgentMessage run;
    run.type = app::AgentMessage::Type::Run;
    run.id = 1;
    run.run = request;
    const auto decoded = app::decodeAgentMessage(app::encodeAgentMessage(run));
    if (!decoded)
        return decoded.error();
    return {};
}

} // namespace

class TestRateRangeEntries : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyEntryAgrees_data() {
        QTest::addColumn<double>("rate");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("the least") << 0.001 << true;
        QTest::newRow("just below the least") << 0.000999 << false;
        QTest::newRow("a tenth of the least") << 0.0001 << false;
        QTest::newRow("1e-10") << 1e-10 << false;
        QTest::newRow("1e-300") << 1e-300 << false;
        QTest::newRow("0.2") << 0.2 << true;
        QTest::newRow("the most") << 1e8 << true;
        QTest::newRow("just above the most") << 100000001.0 << false;
        QTest::newRow("5e8") << 5e8 << false;
        QTest::newRow("1e9") << 1e9 << false;
    }

    void everyEntryAgrees() {
        QFETCH(double, rate);
        QFETCH(bool, accepted);
        const std::pair<const char*, app::Result<void>> entries[] = {
            {"command line", throughCli(rate)},
            {"window", throughWindow(rate)},
            {"session file", throughSession(rate)},
            {"agent", throughAgent(rate)},
        };
        for (const auto& [entry, result] : entries) {
            QVERIFY2(result.ok() == accepted,
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(entry),
                                                             result ? QStringLiteral("accepted")
                                                                    : result.error().message)));
            // Every refusal of the rate itself states the one range.
            if (!accepted)
                QVERIFY2(result.error().message.contains(kRange),
                         qPrintable(QLatin1String(entry) + QStringLiteral(": ") +
                                    result.error().message));
        }
    }
};

QTEST_MAIN(TestRateRangeEntries)
#include "tst_rate_range_entries.moc"
