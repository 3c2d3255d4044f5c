// LockFilterProxy: text, kind and "only with diagnoses" filters, numeric sorting through the raw-value role.
#include "inspector/lockfilterproxy.h"
#include "inspector/locktablemodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

class TestLockFilterProxy : public QObject
{
    Q_OBJECT
private slots:
    void filters();
    void sortsTtlAsNumbers();
    void liveUpdatesRefilter();
};

namespace {

LockRecord rec(const QByteArray &key, LockKind kind, qint64 pttl, const QByteArray &owner = "owner")
{
    LockRecord r;
    r.key = key;
    r.kind = kind;
    r.library
        = kind == LockKind::Mutex ? QStringLiteral("redis-py (probable)") : QStringLiteral("Redisson");
    r.type = "string";
    r.pttlMs = pttl;
    r.readAtMs = 0;
    LockOwner o;
    o.id = owner;
    r.owners = {o};
    return r;
}

QStringList keys(const QSortFilterProxyModel &proxy)
{
    QStringList out;
    for (int row = 0; row < proxy.rowCount(); ++row)
        out << proxy.index(row, LockTableModel::KeyColumn).data().toString();
    return out;
}

} // namespace

void TestLockFilterProxy::filters()
{
    LockTableModel model;
    LockFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    LockRecord stuck = rec("job:nightly", LockKind::Mutex, -1);
    stuck.diagnoses = {{QStringLiteral("no-ttl"), QStringLiteral("never expires"), {}}};
    LockRecord worker = rec(QByteArray("lock:\xff", 6), LockKind::Mutex, 5000, "Worker-7");
    worker.library = QStringLiteral("SET NX lock");
    model.upsert({rec("order:1", LockKind::Reentrant, 20000, "abc:1"), stuck, worker});
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setText(QStringLiteral("ORDER"));
    QCOMPARE(keys(proxy), QStringList {QStringLiteral("order:1")});
    proxy.setText(QStringLiteral("worker-7")); // owners are searched too
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText(QStringLiteral("\\xff")); // binary keys are searched as they are shown
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText(QStringLiteral("redis-py")); // and the library
    QCOMPARE(keys(proxy), QStringList {QStringLiteral("job:nightly")});
    proxy.setText(QString());
    proxy.setKind(LockKind::Reentrant);
    QCOMPARE(keys(proxy), QStringList {QStringLiteral("order:1")});
    proxy.setKind(std::nullopt);
    proxy.setProblemsOnly(true);
    QCOMPARE(keys(proxy), QStringList {QStringLiteral("job:nightly")});
}

void TestLockFilterProxy::sortsTtlAsNumbers()
{
    LockTableModel model;
    LockFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // As text, "9 min 00 s" < "10.0 s" < "2 h …"; as numbers it is the other way round.
    model.upsert({rec("a", LockKind::Mutex, 540000), rec("b", LockKind::Mutex, 10000),
                  rec("c", LockKind::Mutex, -1), rec("d", LockKind::Mutex, 7200000),
                  rec("e", LockKind::Mutex, 800)});
    proxy.sort(LockTableModel::TtlColumn, Qt::AscendingOrder);
    QCOMPARE(keys(proxy), (QStringList {"e", "b", "a", "d", "c"}));
    proxy.sort(LockTableModel::TtlColumn, Qt::DescendingOrder);
    QCOMPARE(keys(proxy).first(), QStringLiteral("c"));
}

void TestLockFilterProxy::liveUpdatesRefilter()
{
    LockTableModel model;
    LockFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setProblemsOnly(true);
    LockRecord r = rec("order:1", LockKind::Reentrant, 20000);
    model.upsert({r});
    QCOMPARE(proxy.rowCount(), 0);
    r.diagnoses = {{QStringLiteral("watchdog-stalled"), QStringLiteral("stopped renewing"), {}}};
    model.upsert({r});
    QCOMPARE(proxy.rowCount(), 1); // a lock that turns bad appears without a refresh of everything
}

QTEST_MAIN(TestLockFilterProxy)
#include "tst_lockfilterproxy.moc"
