#include "app/session/metric.h"
#include "app/session/session_document.h"
#include "ui/shell/target_table_model.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>

using loadscope::app::DeploymentMode;
using loadscope::app::SessionDocument;
using loadscope::app::Target;
using loadscope::app::TargetProtocol;
using loadscope::ui::TargetTableModel;

namespace {

Target httpTarget(const QString& name, DeploymentMode mode, int index, const QString& url) {
    Target target = loadscope::app::makeTarget(name, mode, index);
    target.http.url = url;
    return target;
}

QString cell(const TargetTableModel& model, int row, int column) {
    return model.index(row, column).data().toString();
}

} // namespace

class TstTargetTableModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        m_document = std::make_unique<SessionDocument>();
        m_model = std::make_unique<TargetTableModel>(m_document.get());
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }
    void cleanup() {
        m_tester.reset();
        m_model.reset();
        m_document.reset();
    }

    void showsEveryTargetWithItsColumns() {
        const QUuid host =
            m_document->addTarget(httpTarget(QStringLiteral("host"), DeploymentMode::Host, 0,
                                             QStringLiteral("http://127.0.0.1:8080/")));
        Target nat = httpTarget(QStringLiteral("nat"), DeploymentMode::ContainerNat, 1,
                                QStringLiteral("http://127.0.0.1:8081/"));
        nat.http.keepAlive = false;
        nat.http.headers = {{QStringLiteral("Accept"), QStringLiteral("*/*")}};
        m_document->addTarget(nat);
        Target cache =
            loadscope::app::makeTarget(QStringLiteral("cache"), DeploymentMode::Custom, 2);
        cache.customMode = QStringLiteral("ipvlan");
        cache.protocol = TargetProtocol::Memcache;
        cache.address = QStringLiteral("10.0.0.2:11211");
        m_document->addTarget(cache);

        QCOMPARE(m_model->rowCount(), 3);
        QCOMPARE(m_model->columnCount(), int(TargetTableModel::ColumnCount));
        QCOMPARE(cell(*m_model, 0, TargetTableModel::NameColumn),
                 QStringLiteral("host (baseline)"));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn), QStringLiteral("nat"));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::ModeColumn),
                 loadscope::app::deploymentModeTitle(DeploymentMode::ContainerNat));
        QCOMPARE(cell(*m_model, 2, TargetTableModel::ModeColumn), QStringLiteral("ipvlan"));
        QCOMPARE(cell(*m_model, 2, TargetTableModel::ProtocolColumn), QStringLiteral("memcache"));
        QCOMPARE(cell(*m_model, 0, TargetTableModel::EndpointColumn),
                 QStringLiteral("http://127.0.0.1:8080/"));
        QCOMPARE(cell(*m_model, 2, TargetTableModel::EndpointColumn),
                 QStringLiteral("10.0.0.2:11211"));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::OptionsColumn),
                 QStringLiteral("GET, new connection each, 1 header"));
        QVERIFY(cell(*m_model, 2, TargetTableModel::OptionsColumn).contains(QStringLiteral("R:R")));

        const QModelIndex hostName = m_model->index(0, TargetTableModel::NameColumn);
        QCOMPARE(hostName.data(TargetTableModel::TargetIdRole).toUuid(), host);
        QVERIFY(hostName.data(TargetTableModel::IsBaselineRole).toBool());
        QVERIFY(hostName.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!m_model->index(1, 0).data(TargetTableModel::IsBaselineRole).toBool());
        QCOMPARE(m_model->index(1, 0).data(TargetTableModel::ColourRole).value<QColor>(),
                 QColor(nat.colour));
        QVERIFY(!hostName.data(Qt::DecorationRole).isNull());
        // The protocol's headline metric, defined, in its own words.
        const QString memcacheTip =
            m_model->index(2, TargetTableModel::ProtocolColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(memcacheTip.contains(QStringLiteral("Ops/s")), qPrintable(memcacheTip));
        QVERIFY(memcacheTip.contains(
            loadscope::app::metricInfo(loadscope::app::Metric::RequestsPerSecond)
                .definition.toHtmlEscaped()));
        QCOMPARE(m_model->headerData(TargetTableModel::EndpointColumn, Qt::Horizontal),
                 QVariant(QStringLiteral("Address / URL")));

        // An HTTP/2 target says so, with the streams that take its pipeline's place.
        Target h2 = *m_document->session().findTarget(host);
        h2.http.http2 = true;
        h2.http.maxConcurrentStreams = 10;
        QVERIFY(m_document->updateTarget(h2));
        QCOMPARE(cell(*m_model, 0, TargetTableModel::OptionsColumn),
                 QStringLiteral("GET, keep-alive, HTTP/2, 10 streams"));
    }

    // Lab targets say they are, and each shows its own mode, not the address that stands in
    // for every one of them until the lab is built.
    void labTargetsSayTheyAreLabTargets() {
        for (const char* mode : {"host", "container-nat"}) {
            Target target = loadscope::app::makeTarget(
                QString::fromLatin1(mode),
                *loadscope::app::deploymentModeFromId(QString::fromLatin1(mode)),
                int(m_document->session().targets.size()));
            target.protocol = TargetProtocol::TcpRr;
            target.address = QStringLiteral("10.213.0.2:8080");
            target.lab =
                loadscope::app::LabPlacement{QString::fromLatin1(mode), QStringLiteral("echo"), {}};
            m_document->addTarget(target);
        }
        const QString host = cell(*m_model, 0, TargetTableModel::EndpointColumn);
        const QString nat = cell(*m_model, 1, TargetTableModel::EndpointColumn);
        QVERIFY2(host != nat, qPrintable(host));
        for (int row = 0; row < 2; ++row) {
            const QString endpoint = cell(*m_model, row, TargetTableModel::EndpointColumn);
            QVERIFY2(endpoint.contains(QStringLiteral("lab")), qPrintable(endpoint));
            QVERIFY2(!endpoint.contains(QStringLiteral("10.213.0.2")), qPrintable(endpoint));
            QVERIFY2(
                cell(*m_model, row, TargetTableModel::ModeColumn).contains(QStringLiteral("lab")),
                qPrintable(cell(*m_model, row, TargetTableModel::ModeColumn)));
        }
        QVERIFY(nat.contains(QStringLiteral("container-nat")));
    }

    void editsUpdateRowsInPlace() {
        m_document->addTarget(
            httpTarget(QStringLiteral("a"), DeploymentMode::Host, 0, QStringLiteral("http://a/")));
        const QUuid b = m_document->addTarget(httpTarget(
            QStringLiteral("b"), DeploymentMode::LinuxBridge, 1, QStringLiteral("http://b/")));
        QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
        QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);

        Target edited = *m_document->session().findTarget(b);
        edited.name = QStringLiteral("bridge");
        QVERIFY(m_document->updateTarget(edited));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn), QStringLiteral("bridge"));
        QVERIFY(!changed.isEmpty());

        QVERIFY(m_document->setBaseline(b));
        QCOMPARE(cell(*m_model, 0, TargetTableModel::NameColumn), QStringLiteral("a"));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn),
                 QStringLiteral("bridge (baseline)"));
        QCOMPARE(reset.count(), 0);
    }

    void addAndRemoveAreAnnouncedAsRows() {
        QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(m_model.get(), &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);
        const QUuid a = m_document->addTarget(
            httpTarget(QStringLiteral("a"), DeploymentMode::Host, 0, QStringLiteral("http://a/")));
        const QUuid b = m_document->addTarget(httpTarget(
            QStringLiteral("b"), DeploymentMode::Macvlan, 1, QStringLiteral("http://b/")));
        m_document->addTarget(httpTarget(QStringLiteral("c"), DeploymentMode::OvsBridge, 2,
                                         QStringLiteral("http://c/")));
        QCOMPARE(inserted.count(), 3);
        QCOMPARE(inserted.at(2).at(1).toInt(), 2);

        QVERIFY(m_document->removeTarget(b));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed.at(0).at(1).toInt(), 1);
        QCOMPARE(m_model->rowCount(), 2);
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn), QStringLiteral("c"));

        // Removing the baseline: the first remaining target becomes it.
        QVERIFY(m_document->removeTarget(a));
        QCOMPARE(cell(*m_model, 0, TargetTableModel::NameColumn), QStringLiteral("c (baseline)"));
        QCOMPARE(reset.count(), 0);
    }

    void aSelectionFollowsItsTargetWhenMoved() {
        for (int i = 0; i < 4; ++i)
            m_document->addTarget(httpTarget(QStringLiteral("t%1").arg(i), DeploymentMode::Host, i,
                                             QStringLiteral("http://h%1/").arg(i)));
        QItemSelectionModel selection(m_model.get());
        selection.select(m_model->index(1, 0),
                         QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        selection.setCurrentIndex(m_model->index(1, 0), QItemSelectionModel::NoUpdate);
        const QUuid selected = m_model->targetId(1);

        QVERIFY(m_document->moveTarget(1, 3));
        QCOMPARE(m_model->rowOf(selected), 3);
        QCOMPARE(selection.currentIndex().row(), 3);
        QVERIFY(selection.isRowSelected(3, {}));
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn), QStringLiteral("t2"));
    }

    void aNewSessionResetsTheModel() {
        m_document->addTarget(
            httpTarget(QStringLiteral("a"), DeploymentMode::Host, 0, QStringLiteral("http://a/")));
        QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);
        QVERIFY(m_document->open(QStringLiteral("demo-proxy")));
        QCOMPARE(reset.count(), 1);
        QCOMPARE(m_model->rowCount(), 2);
        QCOMPARE(cell(*m_model, 1, TargetTableModel::NameColumn), QStringLiteral("userland-proxy"));

        m_document->reset({});
        QCOMPARE(m_model->rowCount(), 0);
        QCOMPARE(m_model->targetId(0), QUuid());
        QCOMPARE(m_model->rowOf(QUuid::createUuid()), -1);
    }

private:
    std::unique_ptr<SessionDocument> m_document;
    std::unique_ptr<TargetTableModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

QTEST_MAIN(TstTargetTableModel)
#include "tst_target_table_model.moc"
