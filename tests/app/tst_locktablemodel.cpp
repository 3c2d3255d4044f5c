// LockTableModel: updates by diff — inserted rows, removed runs, ranged dataChanged — never a reset on
// refresh.
#include "inspect/inspectclock.h"
#include "inspector/locktablemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

class TestLockTableModel : public QObject
{
    Q_OBJECT
private slots:
    void insertsThenUpdatesInPlace();
    void changedRowsComeAsRanges();
    void onlyChangedColumnsAreAnnounced();
    void removesRunsAndKeepsIndex();
    void retainOnly();
    void rawValuesForSorting();
    void leaseIsTheHighestTtlSeen();
    void aNewOwnerStartsItsOwnLease();
    void csvTtlIsANumberOrEmptyWithItsState();
};

namespace {

LockRecord rec(const QByteArray &key, qint64 pttl, qint64 readAt = 1000)
{
    LockRecord r;
    r.key = key;
    r.kind = LockKind::Mutex;
    r.type = "string";
    r.pttlMs = pttl;
    r.readAtMs = readAt;
    r.owners = {{"owner", {}, {}, -1, {}, {}, {}, -1, -1}};
    return r;
}

QList<LockRecord> many(int n, qint64 pttl = 30000)
{
    QList<LockRecord> out;
    for (int i = 0; i < n; ++i)
        out << rec("k" + QByteArray::number(i), pttl);
    return out;
}

} // namespace

void TestLockTableModel::insertsThenUpdatesInPlace()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.upsert(many(10));
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(inserted.count(), 1); // one batch, one insertion
    model.upsert(many(10)); // the same readings again: nothing to say
    QCOMPARE(changed.count(), 0);
    QCOMPARE(model.rowCount(), 10);
    // A later reading that agrees with the countdown is no change either.
    QList<LockRecord> later = many(10, 29000);
    for (LockRecord &r : later)
        r.readAtMs = 2000;
    model.upsert(later);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(reset.count(), 0);
}

void TestLockTableModel::changedRowsComeAsRanges()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.upsert(many(20));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QList<LockRecord> update;
    for (int i : {2, 3, 4, 10, 15, 16}) {
        LockRecord r = rec("k" + QByteArray::number(i), 30000, 5000); // renewed: a later deadline
        update << r;
    }
    model.upsert(update);
    QCOMPARE(changed.count(), 3); // rows 2-4, 10, 15-16
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 2);
    QCOMPARE(changed.at(0).at(1).toModelIndex().row(), 4);
    // Only the TTL column changed (renewed): only it is announced.
    QCOMPARE(changed.at(0).at(0).toModelIndex().column(), int(LockTableModel::TtlColumn));
    QCOMPARE(changed.at(0).at(1).toModelIndex().column(), int(LockTableModel::TtlColumn));
    QCOMPARE(changed.at(2).at(0).toModelIndex().row(), 15);
    QCOMPARE(changed.at(2).at(1).toModelIndex().row(), 16);
}

void TestLockTableModel::onlyChangedColumnsAreAnnounced()
{
    LockTableModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(LockTableModel::SortRole);
    proxy.sort(LockTableModel::ProblemsColumn, Qt::DescendingOrder);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.upsert(many(50));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy relayout(&proxy, &QAbstractItemModel::layoutChanged);
    LockRecord r = rec("k7", 30000);
    r.owners = {{"someone-else", {}, {}, -1, {}, {}, {}, -1, -1}};
    model.upsert({r});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().column(), int(LockTableModel::OwnerColumn));
    QCOMPARE(changed.first().at(1).toModelIndex().column(), int(LockTableModel::OwnerColumn));
    QCOMPARE(relayout.count(), 0); // the sort column did not change: the proxy keeps its order as is
    r.diagnoses = {{QStringLiteral("no-ttl"), QStringLiteral("x"), {}}};
    model.upsert({r});
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.last().at(1).toModelIndex().column(), int(LockTableModel::ProblemsColumn));
    QCOMPARE(proxy.index(0, LockTableModel::KeyColumn).data().toString(), QStringLiteral("k7"));
    // Details only (a companion's TTL): the row's cells are unchanged, nothing to announce.
    r.companions = {{"c", LockCompanion::Role::Token, "string", 5, QStringLiteral("token 3")}};
    model.upsert({r});
    QCOMPARE(changed.count(), 2);
    QCOMPARE(model.find("k7")->companions.size(), 1);
}

void TestLockTableModel::removesRunsAndKeepsIndex()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.upsert(many(10));
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    model.remove({"k1", "k2", "k7", "nope"});
    QCOMPARE(removed.count(), 2);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.rowOf("k3"), 1);
    QCOMPARE(model.rowOf("k9"), 6);
    QCOMPARE(model.rowOf("k7"), -1);
    QCOMPARE(model.record(model.rowOf("k8")).key, QByteArray("k8"));
}

void TestLockTableModel::retainOnly()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.upsert(many(5));
    QList<QByteArray> gone = model.retainOnly({"k0", "k3"});
    std::sort(gone.begin(), gone.end());
    QCOMPARE(gone, (QList<QByteArray> {"k1", "k2", "k4"}));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(reset.count(), 0);
    model.clear();
    QCOMPARE(reset.count(), 1);
}

void TestLockTableModel::rawValuesForSorting()
{
    LockTableModel model;
    LockRecord noTtl = rec("none", -1);
    noTtl.diagnoses = {{QStringLiteral("no-ttl"), QStringLiteral("x"), {}}};
    LockRecord waiting = rec("wait", 9000);
    waiting.subscribers = 12;
    model.upsert({rec("short", 500), rec("long", 600000), noTtl, waiting});
    const auto sortValue = [&](const QByteArray &key, int column) {
        return model.index(model.rowOf(key), column).data(LockTableModel::SortRole);
    };
    QVERIFY(sortValue("short", LockTableModel::TtlColumn).toLongLong()
            < sortValue("wait", LockTableModel::TtlColumn).toLongLong());
    QVERIFY(sortValue("long", LockTableModel::TtlColumn).toLongLong()
            < sortValue("none", LockTableModel::TtlColumn).toLongLong());
    QCOMPARE(sortValue("wait", LockTableModel::WaitersColumn).toLongLong(), 12);
    QVERIFY(sortValue("none", LockTableModel::ProblemsColumn).toInt()
            > sortValue("wait", LockTableModel::ProblemsColumn).toInt());
    QCOMPARE(model.index(model.rowOf("none"), LockTableModel::TtlColumn).data().toString(),
             QStringLiteral("no TTL"));
    QCOMPARE(model.index(model.rowOf("wait"), LockTableModel::WaitersColumn).data().toString(),
             QStringLiteral("12"));
    QCOMPARE(model.index(model.rowOf("short"), LockTableModel::WaitersColumn).data().toString(),
             QStringLiteral("?"));
}

void TestLockTableModel::leaseIsTheHighestTtlSeen()
{
    LockTableModel model;
    model.upsert({rec("k", 20000)});
    model.upsert({rec("k", 30000, 2000)});
    model.upsert({rec("k", 25000, 7000)});
    QCOMPARE(model.leaseOf(0), 30000);
    QCOMPARE(model.index(0, 0).data(LockTableModel::LeaseRole).toLongLong(), 30000);
    QCOMPARE(model.index(0, 0).data(LockTableModel::DeadlineRole).toLongLong(), 32000);
}

void TestLockTableModel::aNewOwnerStartsItsOwnLease()
{
    LockTableModel model;
    model.upsert({rec("k", 891000)}); // the old lock: 14 min 51 s
    LockRecord next = rec("k", 55600, 2000);
    next.owners.first().id = "another owner";
    model.upsert({next});
    // Before: 891000, and the bar read "55.6 s of 14 min 51 s".
    QCOMPARE(model.leaseOf(0), 55600);
    next.pttlMs = 40000;
    next.readAtMs = 17000;
    model.upsert({next});
    QCOMPARE(model.leaseOf(0), 55600); // the same owner: its own highest TTL
}

void TestLockTableModel::csvTtlIsANumberOrEmptyWithItsState()
{
    QList<LockRecord> records {rec("ttl", 5000, InspectClock::monotonicMs()), rec("none", -1),
                               rec("gone", -2), rec("unread", -3)};
    const QList<QByteArray> lines = LockTableModel::csv(records).trimmed().split('\n');
    const QList<QByteArray> header = lines.first().trimmed().split(',');
    const qsizetype ttl = header.indexOf("ttl_ms");
    const qsizetype state = header.indexOf("ttl_state");
    QVERIFY(ttl >= 0 && state >= 0);
    QHash<QByteArray, QPair<QByteArray, QByteArray>> byKey;
    for (const QByteArray &line : lines.mid(1)) {
        const QList<QByteArray> cells = line.trimmed().split(',');
        byKey.insert(cells.first(), {cells.at(ttl), cells.at(state)});
    }
    bool number = false;
    QVERIFY(byKey.value("ttl").first.toLongLong(&number) > 0 && number);
    QCOMPARE(byKey.value("ttl").second, QByteArray("expires"));
    // Never a word in the number column: before, it held "none" and "gone".
    QCOMPARE(byKey.value("none"), qMakePair(QByteArray(), QByteArray("no-ttl")));
    QCOMPARE(byKey.value("gone"), qMakePair(QByteArray(), QByteArray("gone")));
    QCOMPARE(byKey.value("unread"), qMakePair(QByteArray(), QByteArray("unknown")));
}

QTEST_MAIN(TestLockTableModel)
#include "tst_locktablemodel.moc"
