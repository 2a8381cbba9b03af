// The Compare page's comparison table as a reader uses it: filtered by the level and metric
// pickers ("all" included) and by text, the change with its interval and the test that judged
// it, columns fitted to their content with names cut in the middle and whole in the tooltip,
// widths the user drags kept for next time, and the report's header on the tests.

#include "app/session/comparison.h"
#include "app/session/session_document.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/common/background_settings.h"
#include "ui/compare/compare_report.h"
#include "ui/compare/comparison_table_model.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace loadscope;
using test::pageFor;
using ui::ModeBarChart;

namespace {

// As a user's pick does: the item chosen, then activated.
void choose(QComboBox* combo, const QVariant& value) {
    combo->setCurrentIndex(combo->findData(value));
    Q_EMIT combo->activated(combo->currentIndex());
}

constexpr int kAll = -1; // the pickers' "all" item

QSet<QString> column(const QAbstractItemModel& model, int column) {
    QSet<QString> values;
    for (int row = 0; row < model.rowCount(); ++row)
        values << model.index(row, column).data().toString();
    return values;
}

} // namespace

class TestComparisonTable : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void tableFollowsTheLevelAndMetricPickers();
    void changeColumnShowsTheChangeWithItsInterval();
    void columnsFitTheirContentAndNamesElideInTheMiddle();
    void columnWidthsTheUserSetAreRemembered();
    void reportNamesTheTestOfEachRow();

private:
    QTemporaryDir m_settings;
};

void TestComparisonTable::initTestCase() {
    // Numbers as the C locale writes them, whatever the machine's.
    QLocale::setDefault(QLocale::c());
    // Column widths the tests set go to settings of this run only.
    QVERIFY(m_settings.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    QCoreApplication::setOrganizationName(QStringLiteral("LoadscopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_comparison_table"));
}

// The table shows the level and the metric the pickers name, or every one with "all": at
// the highest level and the primary metric at first, a row per target.
void TestComparisonTable::tableFollowsTheLevelAndMetricPickers() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    auto* level = page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    auto* metric = page->findChild<QComboBox*>(QStringLiteral("metricCombo"));
    const QAbstractItemModel& table =
        *page->findChild<QTableView*>(QStringLiteral("comparisonTable"))->model();
    const QString rps = app::metricLabel(app::Metric::RequestsPerSecond, app::TargetProtocol::Http);
    QCOMPARE(table.rowCount(), 2);
    QCOMPARE(column(table, ui::ComparisonTableModel::ConcurrencyColumn),
             QSet<QString>{QStringLiteral("10")});
    QCOMPARE(column(table, ui::ComparisonTableModel::MetricColumn), QSet<QString>{rps});

    choose(level, 1);
    QCOMPARE(column(table, ui::ComparisonTableModel::ConcurrencyColumn),
             QSet<QString>{QStringLiteral("1")});
    choose(metric, int(app::Metric::LatencyP99));
    QCOMPARE(table.rowCount(), 2);
    QCOMPARE(column(table, ui::ComparisonTableModel::MetricColumn),
             QSet<QString>{app::metricLabel(app::Metric::LatencyP99, app::TargetProtocol::Http)});

    // "All levels": every level of p99; the charts stay at the level picked last.
    choose(level, kAll);
    QCOMPARE(column(table, ui::ComparisonTableModel::ConcurrencyColumn),
             (QSet<QString>{QStringLiteral("1"), QStringLiteral("10")}));
    QCOMPARE(test::pageChart<ModeBarChart>(*page, "primaryBars")->title(),
             QStringLiteral("Latency p99 at c=1"));
    choose(metric, kAll);
    const app::Comparison comparison(document.session());
    QCOMPARE(table.rowCount(), int(comparison.rows().size()));
    QCOMPARE(test::pageChart<ModeBarChart>(*page, "primaryBars")->title(),
             QStringLiteral("Latency p99 at c=1"));

    // The filter box narrows further, to rows holding its text.
    auto* filter = page->findChild<QLineEdit*>(QStringLiteral("tableFilter"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("container-nat"));
    QVERIFY(table.rowCount() > 0);
    QCOMPARE(column(table, ui::ComparisonTableModel::TargetColumn),
             QSet<QString>{QStringLiteral("container-nat")});
}

// "−13.5% [−x, −y]": the change of NAT against host at c=1, its requests/s per repetition
// 90, 95, 100 against 100, 110, 120, paired by repetition: the geometric mean of the three
// ratios with Student's t interval (2 degrees of freedom) of their logs.
void TestComparisonTable::changeColumnShowsTheChangeWithItsInterval() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    choose(page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo")), 1);
    const QAbstractItemModel& table =
        *page->findChild<QTableView*>(QStringLiteral("comparisonTable"))->model();
    QCOMPARE(
        table.headerData(ui::ComparisonTableModel::VsBaselineColumn, Qt::Horizontal).toString(),
        QStringLiteral("Change [95% CI]"));
    int nat = -1;
    for (int row = 0; row < table.rowCount(); ++row)
        if (table.index(row, ui::ComparisonTableModel::TargetColumn).data() ==
            QStringLiteral("container-nat"))
            nat = row;
    QVERIFY(nat >= 0);

    const double logs[] = {std::log(90.0 / 100), std::log(95.0 / 110), std::log(100.0 / 120)};
    const double mean = (logs[0] + logs[1] + logs[2]) / 3;
    double squares = 0;
    for (double value : logs)
        squares += (value - mean) * (value - mean);
    const double half = 4.302652729911275 * std::sqrt(squares / 2) / std::sqrt(3.0);
    const auto percent = [](double log) -> double {
        return (std::exp(log) - 1) * 100;
    };
    const auto signedText = [](double value) -> QString {
        return (value < 0 ? QString(QChar(0x2212)) : QStringLiteral("+")) +
               QString::number(std::abs(value), 'f', 1);
    };
    const QString expected = QStringLiteral("%1% [%2, %3]")
                                 .arg(signedText(percent(mean)), signedText(percent(mean - half)),
                                      signedText(percent(mean + half)));
    QCOMPARE(table.index(nat, ui::ComparisonTableModel::VsBaselineColumn).data().toString(),
             expected);
    QCOMPARE(table.index(nat, ui::ComparisonTableModel::MethodColumn).data().toString(),
             QStringLiteral("paired"));
    // The verdict no longer carries the test: it has a column of its own.
    QVERIFY(!table.index(nat, ui::ComparisonTableModel::VerdictColumn)
                 .data()
                 .toString()
                 .contains(QStringLiteral("paired")));
}

// Columns as wide as their content; a series name longer than its column keeps both ends,
// whole in its tooltip.
void TestComparisonTable::columnsFitTheirContentAndNamesElideInTheMiddle() {
    app::Session session = test::twoTargetSession();
    session.targets[1].name = QStringLiteral("container behind NAT, docker 24 with the userland "
                                             "proxy switched off and iptables doing the work");
    session.results.push_back(test::importedResult(session.targets[1].id, 10, 3, 999.0, 5.0));
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    QTableView* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    QCOMPARE(view->textElideMode(), Qt::ElideMiddle);
    const QAbstractItemModel& table = *view->model();
    const QFontMetrics metrics(view->font());
    for (int row = 0; row < table.rowCount(); ++row) {
        const QModelIndex name = table.index(row, ui::ComparisonTableModel::TargetColumn);
        QCOMPARE(name.data(Qt::ToolTipRole).toString(), name.data().toString());
    }
    QTRY_VERIFY(view->horizontalHeader()->sectionSize(ui::ComparisonTableModel::MetricColumn) > 0);
    // Every column but the names shows its widest text whole; the verdict takes no more
    // than it needs.
    for (int c = 0; c < table.columnCount(); ++c) {
        if (c == ui::ComparisonTableModel::TargetColumn)
            continue;
        int widest = metrics.horizontalAdvance(table.headerData(c, Qt::Horizontal).toString());
        for (int row = 0; row < table.rowCount(); ++row)
            widest =
                std::max(widest, metrics.horizontalAdvance(table.index(row, c).data().toString()));
        const int width = view->horizontalHeader()->sectionSize(c);
        QVERIFY2(width >= widest,
                 qPrintable(QStringLiteral("column %1: %2 < %3").arg(c).arg(width).arg(widest)));
        QVERIFY2(width <= widest + 60 || c == ui::ComparisonTableModel::ModeColumn,
                 qPrintable(QStringLiteral("column %1: %2 for %3").arg(c).arg(width).arg(widest)));
    }
    // The long name's column takes what the others leave, up to a share of the view.
    const int names = view->horizontalHeader()->sectionSize(ui::ComparisonTableModel::TargetColumn);
    QVERIFY2(names >= metrics.horizontalAdvance(QStringLiteral("host (loadscope, closed-loop)")),
             qPrintable(QString::number(names)));
}

// A width the user dragged is kept, and comes back with the next page.
void TestComparisonTable::columnWidthsTheUserSetAreRemembered() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    int chosen = 0;
    {
        const auto page = pageFor(document);
        page->show();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        QHeaderView* header =
            page->findChild<QTableView*>(QStringLiteral("comparisonTable"))->horizontalHeader();
        chosen = header->sectionSize(ui::ComparisonTableModel::VerdictColumn) + 57;
        // A drag: the button down on the header while the section is resized.
        const QPoint at(header->sectionViewportPosition(ui::ComparisonTableModel::VerdictColumn) +
                            5,
                        header->height() / 2);
        QMouseEvent press(QEvent::MouseButtonPress, at, header->viewport()->mapToGlobal(at),
                          Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(header->viewport(), &press);
        header->resizeSection(ui::ComparisonTableModel::VerdictColumn, chosen);
        QMouseEvent release(QEvent::MouseButtonRelease, at, header->viewport()->mapToGlobal(at),
                            Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(header->viewport(), &release);
        QTest::qWait(600); // the store waits for the drag to end
        // A rebuild fits the other columns again but leaves this one.
        document.setName(QStringLiteral("renamed"));
        QVERIFY(test::chartsCurrent(*page));
        QTest::qWait(50);
        QCOMPARE(header->sectionSize(ui::ComparisonTableModel::VerdictColumn), chosen);
    }
    ui::settings::waitForWrites();
    const auto again = pageFor(document);
    again->show();
    QVERIFY(QTest::qWaitForWindowExposed(again.get()));
    QTRY_COMPARE(again->findChild<QTableView*>(QStringLiteral("comparisonTable"))
                     ->horizontalHeader()
                     ->sectionSize(ui::ComparisonTableModel::VerdictColumn),
                 chosen);
}

// The report says how each change was judged, as the table does: no single test named for
// all when the rows were paired.
void TestComparisonTable::reportNamesTheTestOfEachRow() {
    app::SessionDocument document;
    app::Session session = test::twoTargetSession();
    document.reset(session);
    const auto page = pageFor(document);
    const ui::CompareReport report = page->report();
    const QString header = report.subtitle.join(u'\n');
    QVERIFY2(!header.contains(QStringLiteral("Welch's t-test")), qPrintable(header));
    QVERIFY2(header.contains(QStringLiteral("1 paired, 0 Welch")), qPrintable(header));
    QCOMPARE(report.table,
             page->findChild<QTableView*>(QStringLiteral("comparisonTable"))->model());
    QCOMPARE(
        report.table->headerData(ui::ComparisonTableModel::MethodColumn, Qt::Horizontal).toString(),
        QStringLiteral("Test"));

    // Sequential runs are not pairs: the same rows judged by Welch's interval, and said so.
    session.plan.order = app::SweepOrder::Sequential;
    document.reset(session);
    QVERIFY(test::chartsCurrent(*page));
    const QString sequential = page->report().subtitle.join(u'\n');
    QVERIFY2(sequential.contains(QStringLiteral("0 paired, 1 Welch")), qPrintable(sequential));
}

QTEST_MAIN(TestComparisonTable)
#include "tst_comparison_table.moc"
