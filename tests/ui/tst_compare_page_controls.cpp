// The Compare page's controls and table: the level, metric, protocol and
// pooling choices drive the charts and the table, edits are coalesced into
// one rebuild, and the table sorts by numbers and copies as TSV. The charts'
// own figures are tst_compare_page's.

#include "app/session/comparison.h"
#include "app/session/session_document.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/common/table_copy.h"
#include "ui/compare/comparison_table_model.h"

#include <QAbstractItemModelTester>
#include <QBarSet>
#include <QCategoryAxis>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStackedBarSeries>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>

using namespace loadscope;
using test::pageFor;
using ui::ModeBarChart;
using ui::ModeLineChart;

class TestComparePageControls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void tableModelsPassTheTester();
    void poolCheckboxJoinsToolsAndLoadModels();
    void controlsChooseLevelAndMetric();
    void http2LevelsAreNamedConnections_data();
    void http2LevelsAreNamedConnections();
    void protocolFilterKeepsProtocolsApart();
    void editsAreCoalescedIntoOneRebuild();
    void hiddenPageRebuildsWhenShown();
    void tableSortsByNumbers();
    void ctrlCCopiesSelectionAsTsv();
    void anotherSessionStartsWithTheDefaultPicks();
    void emptyPageNamesNoLevel();

private:
    QTemporaryDir m_settings;
};

void TestComparePageControls::initTestCase() {
    // Numbers as the C locale writes them, whatever the machine's.
    QLocale::setDefault(QLocale::c());
    // The table's column widths are read from settings of this run only.
    QVERIFY(m_settings.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    QCoreApplication::setOrganizationName(QStringLiteral("LoadscopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_compare_page_controls"));
}

namespace {

// As a user's pick does: the item chosen, then activated.
void choose(QComboBox* combo, const QVariant& value) {
    combo->setCurrentIndex(combo->findData(value));
    Q_EMIT combo->activated(combo->currentIndex());
}

constexpr int kAll = -1; // the pickers' "all" item

} // namespace

void TestComparePageControls::cleanup() {
    QGuiApplication::clipboard()->clear();
}

void TestComparePageControls::tableModelsPassTheTester() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    QVERIFY(view);
    auto* proxy = qobject_cast<QSortFilterProxyModel*>(view->model());
    QVERIFY(proxy);
    QAbstractItemModelTester sourceTester(proxy->sourceModel(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    const app::Comparison comparison(document.session());
    choose(page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo")), kAll);
    choose(page->findChild<QComboBox*>(QStringLiteral("metricCombo")), kAll);
    QCOMPARE(proxy->rowCount(), int(comparison.rows().size()));

    // Resets on new results and on protocol changes keep the model valid.
    app::Session more = document.session();
    more.results.push_back(
        test::measuredResult(more.targets[0].id, 100, 0, 5000, 1.0, {{100'000, 10}}));
    document.reset(more);
    QVERIFY(test::chartsCurrent(*page));
    // Another session: its picks start at the defaults again.
    choose(page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo")), kAll);
    choose(page->findChild<QComboBox*>(QStringLiteral("metricCombo")), kAll);
    QCOMPARE(proxy->rowCount(), int(app::Comparison(more).rows().size()));
    view->sortByColumn(ui::ComparisonTableModel::MeanColumn, Qt::DescendingOrder);
    document.clearResults();
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(proxy->rowCount(), 0);
}

void TestComparePageControls::poolCheckboxJoinsToolsAndLoadModels() {
    // host measured by Loadscope (3 runs) and one imported ab run at c=10.
    app::Session session = test::twoTargetSession();
    session.results.push_back(test::importedResult(session.targets[0].id, 10, 3, 1234.0, 5.0));
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    QVERIFY(test::chartsCurrent(*page));
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    auto* check = page->findChild<QCheckBox*>(QStringLiteral("poolSourcesCheck"));
    QVERIFY(view && check);
    QVERIFY(!check->isChecked());
    const auto rpsRows = [view](const QString& target) {
        QStringList runs;
        QAbstractItemModel* model = view->model();
        for (int r = 0; r < model->rowCount(); ++r) {
            const auto cell = [&](int column) {
                return model->index(r, column).data().toString();
            };
            if (cell(ui::ComparisonTableModel::TargetColumn).startsWith(target) &&
                cell(ui::ComparisonTableModel::ConcurrencyColumn) == QLatin1String("10") &&
                model->index(r, ui::ComparisonTableModel::MetricColumn).data().toString() ==
                    app::metricLabel(app::Metric::RequestsPerSecond, app::TargetProtocol::Http))
                runs << cell(ui::ComparisonTableModel::TargetColumn) + QLatin1Char('=') +
                            cell(ui::ComparisonTableModel::RepetitionsColumn);
        }
        runs.sort();
        return runs;
    };
    QCOMPARE(rpsRows(QStringLiteral("host")),
             (QStringList{QStringLiteral("host (ab, closed-loop)=1"),
                          QStringLiteral("host (loadscope, closed-loop)=3")}));
    check->setChecked(true);
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(rpsRows(QStringLiteral("host")), (QStringList{QStringLiteral("host=4")}));
}

void TestComparePageControls::controlsChooseLevelAndMetric() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    const app::Comparison comparison(document.session());
    auto* level = page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    auto* metric = page->findChild<QComboBox*>(QStringLiteral("metricCombo"));
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    auto* scaling = test::pageChart<ModeLineChart>(*page, "scalingChart");

    choose(level, 1);
    const QUuid host = document.session().targets[0].id;
    QCOMPARE(primary->series()->barSets().at(0)->at(0),
             comparison.find(host, 1, app::Metric::RequestsPerSecond)->statistics.mean);
    QCOMPARE(primary->title(), QStringLiteral("Requests/s at c=1"));

    choose(metric, int(app::Metric::LatencyP99));
    QCOMPARE(primary->title(), QStringLiteral("Latency p99 at c=1"));
    QCOMPARE(primary->series()->barSets().at(0)->at(0),
             comparison.find(host, 1, app::Metric::LatencyP99)->statistics.mean);
    QCOMPARE(scaling->title(), QStringLiteral("Latency p99 by concurrency"));

    // A rebuild keeps the user's choices.
    document.setName(QStringLiteral("renamed"));
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(level->currentData(), 1);
    QCOMPARE(metric->currentData(), int(app::Metric::LatencyP99));
}

// An HTTP/2 target's level is its connections, each carrying the target's streams: the axis,
// the picker, the bar title and the table say so, once when the targets agree on the streams
// and on each target's name when they do not; HTTP/1 alone keeps "Concurrency".
void TestComparePageControls::http2LevelsAreNamedConnections_data() {
    QTest::addColumn<int>("hostStreams"); // 0: HTTP/1
    QTest::addColumn<int>("natStreams");
    QTest::addColumn<QString>("axis");
    QTest::addColumn<QString>("picker");
    QTest::addColumn<QString>("levelTen");
    QTest::addColumn<QStringList>("names");
    const QString h2 = QStringLiteral("Connections (× 10 streams = concurrency 10 × connections)");
    const QString perTarget = QStringLiteral("Connections (streams per target in its name)");
    QTest::newRow("HTTP/1 alone") << 0 << 0 << QStringLiteral("Concurrency")
                                  << QStringLiteral("&Concurrency:") << QStringLiteral("c=10")
                                  << QStringList{QStringLiteral("host"),
                                                 QStringLiteral("container-nat")};
    QTest::newRow("h2, 10 streams each")
        << 10 << 10 << h2 << QStringLiteral("&Connections:")
        << QStringLiteral("10 connections × 10 streams")
        << QStringList{QStringLiteral("host"), QStringLiteral("container-nat")};
    QTest::newRow("HTTP/1 beside h2")
        << 0 << 10 << perTarget << QStringLiteral("&Connections:")
        << QStringLiteral("10 connections")
        << QStringList{QStringLiteral("host (1 per connection)"),
                       QStringLiteral("container-nat (× 10 streams)")};
    QTest::newRow("h2, 4 and 10 streams")
        << 4 << 10 << perTarget << QStringLiteral("&Connections:")
        << QStringLiteral("10 connections")
        << QStringList{QStringLiteral("host (× 4 streams)"),
                       QStringLiteral("container-nat (× 10 streams)")};
}

void TestComparePageControls::http2LevelsAreNamedConnections() {
    QFETCH(int, hostStreams);
    QFETCH(int, natStreams);
    QFETCH(QString, axis);
    QFETCH(QString, picker);
    QFETCH(QString, levelTen);
    QFETCH(QStringList, names);
    app::Session session = test::twoTargetSession();
    const int streams[] = {hostStreams, natStreams};
    for (size_t i = 0; i < 2; ++i) {
        session.targets[i].http.http2 = streams[i] > 0;
        session.targets[i].http.maxConcurrentStreams = std::max(1, streams[i]);
    }
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    auto* level = page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    auto* label = page->findChild<QLabel*>(QStringLiteral("levelLabel"));
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    auto* scaling = test::pageChart<ModeLineChart>(*page, "scalingChart");
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    QVERIFY(level && label && primary && scaling && view);

    // The levels are the sweep's 1 and 10, never multiplied by the streams, after "all".
    QCOMPARE(level->count(), 3);
    QCOMPARE(level->itemData(0).toInt(), kAll);
    QCOMPARE(level->itemData(2).toInt(), 10);
    QCOMPARE(level->itemText(2), levelTen);
    QCOMPARE(label->text(), picker);
    QCOMPARE(primary->title(), QStringLiteral("Requests/s at %1").arg(levelTen));
    QCOMPARE(scaling->axes(Qt::Horizontal).first()->titleText(),
             axis == QLatin1String("Concurrency") ? QStringLiteral("Concurrency (log scale)")
                                                  : axis + QStringLiteral(", log scale"));
    QStringList lineNames;
    for (const QLineSeries* line : scaling->lines())
        lineNames << line->name();
    QCOMPARE(lineNames, names);
    QCOMPARE(scaling->lines().at(0)->points().last().x(), std::log10(10.0));

    const QAbstractItemModel* table = view->model();
    QCOMPARE(
        table->headerData(ui::ComparisonTableModel::ConcurrencyColumn, Qt::Horizontal).toString(),
        axis);
    choose(level, kAll);
    QSet<QString> tableNames;
    QSet<int> tableLevels;
    for (int row = 0; row < table->rowCount(); ++row) {
        tableNames << table->index(row, ui::ComparisonTableModel::TargetColumn).data().toString();
        tableLevels
            << table->index(row, ui::ComparisonTableModel::ConcurrencyColumn).data().toInt();
    }
    QCOMPARE(tableNames, QSet<QString>(names.begin(), names.end()));
    QCOMPARE(tableLevels, (QSet<int>{1, 10}));
}

void TestComparePageControls::protocolFilterKeepsProtocolsApart() {
    app::Session session = test::twoTargetSession();
    app::Target memcached =
        app::makeTarget(QStringLiteral("memcached"), app::DeploymentMode::Host, 2);
    memcached.protocol = app::TargetProtocol::Memcache;
    memcached.address = QStringLiteral("127.0.0.1:11211");
    session.targets.push_back(memcached);
    for (int r = 0; r < 3; ++r)
        session.results.push_back(
            test::measuredResult(memcached.id, 10, r, 40000, 1.0, {{200'000, 100}}));
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    auto* protocol = page->findChild<QComboBox*>(QStringLiteral("protocolCombo"));
    QCOMPARE(protocol->count(), 2);
    QCOMPARE(protocol->currentText(), QStringLiteral("http")); // the baseline's
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QCOMPARE(primary->series()->count(), 2);

    protocol->setCurrentIndex(protocol->findData(int(app::TargetProtocol::Memcache)));
    QCOMPARE(primary->series()->count(), 1);
    QCOMPARE(primary->series()->barSets().at(0)->label(), QStringLiteral("memcached"));
    QCOMPARE(primary->title(), QStringLiteral("Ops/s at c=10"));
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    for (int row = 0; row < view->model()->rowCount(); ++row)
        QCOMPARE(view->model()->index(row, ui::ComparisonTableModel::TargetColumn).data(),
                 QVariant(QStringLiteral("memcached")));
}

void TestComparePageControls::editsAreCoalescedIntoOneRebuild() {
    app::SessionDocument document;
    const auto page = pageFor(document);
    page->show();
    QSignalSpy rebuilt(page.get(), &ui::ComparePage::chartsChanged);
    const app::Session session = test::twoTargetSession();
    app::Session empty = session;
    empty.results.clear();
    document.reset(empty);
    for (const app::PointResult& result : session.results)
        document.putResult(result);
    QCOMPARE(rebuilt.count(), 0); // nothing yet: the page waits for the burst to end
    QTRY_COMPARE(rebuilt.count(), 1);
    QTest::qWait(50);
    QCOMPARE(rebuilt.count(), 1);
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QCOMPARE(primary->series()->count(), 2);
}

void TestComparePageControls::hiddenPageRebuildsWhenShown() {
    app::SessionDocument document;
    const auto page = pageFor(document);
    QSignalSpy rebuilt(page.get(), &ui::ComparePage::chartsChanged);
    document.reset(test::twoTargetSession());
    QTest::qWait(100);
    QCOMPARE(rebuilt.count(), 0);
    QVERIFY(!page->isUpToDate());
    page->show(); // starts the rebuild at once, on a worker thread
    QTRY_COMPARE(rebuilt.count(), 1);
    QVERIFY(page->isUpToDate());
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QCOMPARE(primary->series()->count(), 2);
}

void TestComparePageControls::tableSortsByNumbers() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    choose(page->findChild<QComboBox*>(QStringLiteral("metricCombo")), kAll);
    view->sortByColumn(ui::ComparisonTableModel::MeanColumn, Qt::DescendingOrder);
    const QAbstractItemModel* model = view->model();
    double previous = std::numeric_limits<double>::infinity();
    for (int row = 0; row < model->rowCount(); ++row) {
        const double mean = model->index(row, ui::ComparisonTableModel::MeanColumn)
                                .data(ui::ComparisonTableModel::kSortRole)
                                .toDouble();
        QVERIFY(mean <= previous);
        previous = mean;
    }
    // The largest mean is host's transfer rate at c=10, formatted with grouping.
    QCOMPARE(model->index(0, ui::ComparisonTableModel::MetricColumn).data().toString(),
             QStringLiteral("Transfer rate"));
}

void TestComparePageControls::ctrlCCopiesSelectionAsTsv() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    view->setFocus();
    view->selectAll();
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    const QString text = QGuiApplication::clipboard()->text();
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), view->model()->rowCount() + 1);
    QCOMPARE(lines[0].split(QLatin1Char('\t')).size(), ui::ComparisonTableModel::ColumnCount);
    QVERIFY(lines[0].startsWith(QStringLiteral("Target\tMode\tConcurrency\tMetric")));
    // Numbers as spreadsheets read them: no grouping, no typographic minus.
    const QStringList first = lines[1].split(QLatin1Char('\t'));
    QCOMPARE(first[ui::ComparisonTableModel::TargetColumn], QStringLiteral("host"));
    bool ok = false;
    first[ui::ComparisonTableModel::MeanColumn].toDouble(&ok);
    QVERIFY(ok);
    QVERIFY(!text.contains(QChar(0x2212)));

    // Part of a row: only those columns.
    view->clearSelection();
    view->selectionModel()->select(view->model()->index(1, ui::ComparisonTableModel::MeanColumn),
                                   QItemSelectionModel::Select);
    QCOMPARE(ui::selectionAsTsv(view), QStringLiteral("Mean\n") +
                                           view->model()
                                               ->index(1, ui::ComparisonTableModel::MeanColumn)
                                               .data(ui::kCopyRole)
                                               .toString() +
                                           QLatin1Char('\n'));
}

// Picks, filter and sort were the session's before: another one opens at the defaults.
void TestComparePageControls::anotherSessionStartsWithTheDefaultPicks() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    auto* level = page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    auto* metric = page->findChild<QComboBox*>(QStringLiteral("metricCombo"));
    choose(level, 1);
    choose(metric, int(app::Metric::LatencyP99));
    auto* filter = page->findChild<QLineEdit*>(QStringLiteral("tableFilter"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("nat"));
    page->findChild<QTableView*>(QStringLiteral("comparisonTable"))
        ->sortByColumn(ui::ComparisonTableModel::MeanColumn, Qt::DescendingOrder);

    document.reset(test::twoTargetSession()); // opened again: the same levels and metrics
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(level->currentData().toInt(), 10);
    QCOMPARE(metric->currentData().toInt(), int(app::Metric::RequestsPerSecond));
    QVERIFY(filter->text().isEmpty());
    QCOMPARE(page->findChild<QTableView*>(QStringLiteral("comparisonTable"))
                 ->horizontalHeader()
                 ->sortIndicatorSection(),
             -1);
    QCOMPARE(page->findChild<QTableView*>(QStringLiteral("comparisonTable"))->model()->rowCount(),
             2);
    QCOMPARE(test::pageChart<ModeBarChart>(*page, "primaryBars")->title(),
             QStringLiteral("Requests/s at c=10"));
}

// Nothing measured: the charts name no level the session does not have.
void TestComparePageControls::emptyPageNamesNoLevel() {
    app::Session session = test::twoTargetSession();
    session.results.clear();
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    for (ui::ChartPanel* panel : page->chartPanels()) {
        const QString title = panel->chart()->title();
        QVERIFY2(!title.contains(QStringLiteral("c=0")) && !title.contains(QStringLiteral("at 0")),
                 qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("no results yet")), qPrintable(title));
        // An axis with no ticks to show is not shown: its title floated above the frame.
        for (QAbstractAxis* axis : panel->chart()->axes(Qt::Horizontal)) {
            const auto* categories = qobject_cast<QCategoryAxis*>(axis);
            if (categories && categories->count() == 0)
                QVERIFY2(!axis->isVisible(), qPrintable(axis->titleText()));
        }
    }
}

QTEST_MAIN(TestComparePageControls)
#include "tst_compare_page_controls.moc"
