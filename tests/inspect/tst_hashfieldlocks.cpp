// HashFieldLocks without a server (issue 39): huey's task locks as fields of its results hash, one record each
// with its TTL (the field's, the hash's, or unknown with why), the results and put() values beside them never
// listed, a hash read only in part said to be partial, and fields named like locks in a shared hash listed
// without alarms. The real huey 3.5.4 writes these in tst_reallibraries.
#include "inspect/hashfieldlocks.h"
#include "inspect/lockactions.h"
#include "inspect/lockassembler.h"
#include "inspect/lockdiagnostics.h"
#include "inspect/scanoptions.h"

#include <QTest>

namespace {

// What huey 3.5.4 stores (bytes as its RedisStorage writes them): the pickle of '1' for a lock, a task
// result under its uuid4 id, a put() value.
const QByteArray kPickledOne = QByteArray::fromHex("80059505000000000000008c013194" "2e");

ScannedKey hueyHash()
{
    ScannedKey k;
    k.key = "huey.results.mailer";
    k.type = "hash";
    k.pttlMs = -1;
    k.readAtMs = 1000;
    k.fields = {{"mailer.lock.send-digest", kPickledOne},
                {"6ffdde38-fe76-4f74-b63c-b40d72eed5fb", QByteArray::fromHex("80054b052e")},
                {"report-totals", QByteArray::fromHex("80059510000000000000007d94288c0473656e7494")},
                {"mailer.lock.nightly", kPickledOne}};
    k.fieldCount = k.fields.size();
    k.fieldTtlsAbsent = true; // Redis before 7.4
    return k;
}

const QList<QByteArray> kNames = ScanOptions::defaultLockNamePatterns();

} // namespace

class TestHashFieldLocks : public QObject
{
    Q_OBJECT
private slots:
    void hueyLocksAreFieldsThatNeverExpire();
    void aFieldTtlOrTheHashTtlIsTheLease();
    void anUnreadTtlIsUnknown();
    void aHashReadInPartIsPartial();
    void lockNamedFieldsBesideOtherDataAreListedWithoutAlarms();
    void theAssemblerListsEachFieldOnce();
    void forceUnlockDeletesTheFieldOnly();
};

void TestHashFieldLocks::hueyLocksAreFieldsThatNeverExpire()
{
    QCOMPARE(HashFieldLocks::hueyName("huey.results.mailer"), QByteArray("mailer"));
    QVERIFY(HashFieldLocks::hueyName("huey.results.").isEmpty());
    QVERIFY(HashFieldLocks::hueyName("huey.results.a:b").isEmpty()); // clean_name keeps [A-Za-z0-9_] only
    QList<LockRecord> records = HashFieldLocks::records(hueyHash(), kNames);
    QCOMPARE(records.size(), 2); // not the result, not the put() value
    QCOMPARE(records.at(0).field, QByteArray("mailer.lock.send-digest"));
    QCOMPARE(records.at(1).field, QByteArray("mailer.lock.nightly"));
    for (LockRecord &r : records) {
        QCOMPARE(r.key, QByteArray("huey.results.mailer"));
        QCOMPARE(r.kind, LockKind::Mutex);
        QCOMPARE(r.format, QStringLiteral("huey-task-lock"));
        QVERIFY(r.certain);
        QCOMPARE(r.library, QStringLiteral("huey (instance mailer)"));
        QCOMPARE(r.pttlMs, qint64(-1));
        QCOMPARE(r.value, kPickledOne);
        QVERIFY(r.owners.isEmpty());
        QVERIFY(r.unknownReason(QStringLiteral("owners")).contains(QLatin1String("names no")));
        QVERIFY(r.formatNote.contains(QLatin1String("flush_locks")));
        QVERIFY(r.formatNote.contains(QLatin1String("--flush-locks")));
        QVERIFY(!r.isIncomplete());
        LockDiagnostics::diagnose(r, DiagnosticContext {});
        QVERIFY(r.hasDiagnosis(QStringLiteral("no-ttl")));
        QVERIFY(r.diagnoses.at(0).evidence.contains(QString::fromUtf8(r.field)));
    }
    QVERIFY(records.at(0).identity() != records.at(1).identity());
}

void TestHashFieldLocks::aFieldTtlOrTheHashTtlIsTheLease()
{
    ScannedKey k = hueyHash();
    k.fieldTtlsAbsent = false;
    k.fieldPttls = {{"mailer.lock.send-digest", 5000}, {"mailer.lock.nightly", -1}};
    QList<LockRecord> records = HashFieldLocks::records(k, kNames);
    QCOMPARE(records.at(0).pttlMs, qint64(5000)); // lock_task(ttl=5) on Redis 7.4+: HEXPIRE
    QCOMPARE(records.at(1).pttlMs, qint64(-1));
    k.pttlMs = 3000; // the whole hash expires first
    records = HashFieldLocks::records(k, kNames);
    QCOMPARE(records.at(0).pttlMs, qint64(3000));
    QCOMPARE(records.at(1).pttlMs, qint64(3000));
    k.fieldPttls.insert("mailer.lock.nightly", -2); // deleted between the reads
    QCOMPARE(HashFieldLocks::records(k, kNames).size(), 1);
}

void TestHashFieldLocks::anUnreadTtlIsUnknown()
{
    ScannedKey k = hueyHash();
    k.fieldTtlsAbsent = false;
    k.fieldPttlError = QStringLiteral("HPTTL refused: NOPERM");
    LockRecord r = HashFieldLocks::records(k, kNames).at(0);
    QCOMPARE(r.pttlMs, qint64(-3));
    QCOMPARE(r.unknownReason(QStringLiteral("pttl_ms")), QStringLiteral("HPTTL refused: NOPERM"));
    QVERIFY(r.isIncomplete());
    LockDiagnostics::diagnose(r, DiagnosticContext {});
    QVERIFY(!r.hasDiagnosis(QStringLiteral("no-ttl")));
}

void TestHashFieldLocks::aHashReadInPartIsPartial()
{
    ScannedKey k = hueyHash();
    k.fieldCount = 5000;
    const QList<LockRecord> records = HashFieldLocks::records(k, kNames);
    QCOMPARE(records.size(), 2);
    QVERIFY(records.at(0).unknownReason(QStringLiteral("fields")).contains(QLatin1String("4996")));
    // No lock among the fields read: the hash is listed as huey's, with the rest unread, never as clean.
    k.fields = {{"6ffdde38-fe76-4f74-b63c-b40d72eed5fb", "x"}};
    const QList<LockRecord> partial = HashFieldLocks::records(k, kNames);
    QCOMPARE(partial.size(), 1);
    QCOMPARE(partial.at(0).kind, LockKind::Named);
    QVERIFY(partial.at(0).field.isEmpty());
    QVERIFY(!partial.at(0).unknownReason(QStringLiteral("fields")).isEmpty());
    k.fieldCount = 1; // read whole: nothing to say
    QVERIFY(HashFieldLocks::records(k, kNames).isEmpty());
}

void TestHashFieldLocks::lockNamedFieldsBesideOtherDataAreListedWithoutAlarms()
{
    ScannedKey k;
    k.key = "cfg:app";
    k.type = "hash";
    k.pttlMs = -1;
    k.fieldTtlsAbsent = true;
    k.fields = {{"lock_owner", "worker-7"}, {"theme", "dark"}, {"lock_timeout", "30"}, {"blocklist", "a,b"}};
    k.fieldCount = k.fields.size();
    QList<LockRecord> records = HashFieldLocks::records(k, kNames);
    QCOMPARE(records.size(), 1); // a number is a setting, "blocklist" says no lock
    QCOMPARE(records.at(0).field, QByteArray("lock_owner"));
    QCOMPARE(records.at(0).kind, LockKind::Named);
    LockDiagnostics::diagnose(records[0], DiagnosticContext {});
    QVERIFY(records.at(0).diagnoses.isEmpty());
    // Only lock-named fields: the hash is read as a key of its own (a registry, a lock's hash), not here.
    k.fields = {{"lock_owner", "worker-7"}};
    QVERIFY(HashFieldLocks::lockFields(k, kNames).isEmpty());
    // No hash, no fields.
    k.type = "string";
    QVERIFY(HashFieldLocks::lockFields(k, kNames).isEmpty());
}

void TestHashFieldLocks::theAssemblerListsEachFieldOnce()
{
    LockAssembler assembler {ScanOptions {}};
    const QList<LockRecord> first = assembler.add({hueyHash()}, 0);
    QCOMPARE(first.size(), 2);
    QVERIFY(first.at(0).hasDiagnosis(QStringLiteral("no-ttl")));
    QVERIFY(assembler.add({hueyHash()}, 0).isEmpty()); // SCAN returned the hash again
}

void TestHashFieldLocks::forceUnlockDeletesTheFieldOnly()
{
    ScannedKey k = hueyHash();
    k.fieldCount = 5000; // a big hash read in part: the field's own value is still exact
    const LockRecord r = HashFieldLocks::records(k, kNames).at(0);
    const LockAction a = LockActions::forceUnlock(r);
    QVERIFY2(a.isAvailable(), qPrintable(a.unavailable));
    QCOMPARE(a.field, r.field);
    QCOMPARE(a.command.value(0), QByteArray("EVAL"));
    QCOMPARE(a.command.mid(2), (QList<QByteArray> {"1", r.key, r.field, kPickledOne}));
    const QByteArray script = a.command.value(1);
    QVERIFY(script.contains("redis.call('hget', KEYS[1], ARGV[1])"));
    QVERIFY(script.contains("if v ~= ARGV[2] then return -1 end"));
    QVERIFY(script.contains("redis.call('hdel', KEYS[1], ARGV[1])"));
    QVERIFY(!script.contains("'del'")); // never the shared hash
    QVERIFY(a.commandText().startsWith(QLatin1String("EVAL ")));
    QVERIFY(a.explanation.contains(QLatin1String("one field")));
    // A TTL on the key would expire every other field of the hash.
    QVERIFY(!LockActions::extendTtl(r, 60000).isAvailable());
}

QTEST_GUILESS_MAIN(TestHashFieldLocks)
#include "tst_hashfieldlocks.moc"
