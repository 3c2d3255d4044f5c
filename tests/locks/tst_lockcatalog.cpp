// The catalog: exactly the ten ids of the issue, each complete (texts, scripts, commands, flaw), JSON,
// the factory, and option checks that name the field.
#include "locktestsupport.h"

#include "locks/lockcatalog.h"
#include "locks/luascript.h"

#include <QJsonArray>

class TestLockCatalog : public QObject
{
    Q_OBJECT
private slots:
    void exactlyTheTenIds();
    void everyEntryIsComplete();
    void json();
    void factoryMakesEveryAlgorithm();
    void factoryRefusesWhatCannotWork();
    void optionsFromJson();
};

void TestLockCatalog::exactlyTheTenIds()
{
    const QStringList expected {
        QStringLiteral("setnx-expire"),
        QStringLiteral("set-nx-px-del"),
        QStringLiteral("set-nx-px-get-del"),
        QStringLiteral("set-nx-px-lua"),
        QStringLiteral("set-nx-px-lua-watchdog"),
        QStringLiteral("redisson-reentrant"),
        QStringLiteral("redisson-fair"),
        QStringLiteral("redisson-rw"),
        QStringLiteral("fenced"),
        QStringLiteral("redlock"),
    };
    QCOMPARE(LockCatalog::ids(), expected);
    QVERIFY(!LockCatalog::find(QStringLiteral("nope")));
}

void TestLockCatalog::everyEntryIsComplete()
{
    for (const LockAlgorithmInfo &a : LockCatalog::all()) {
        QVERIFY2(!a.title.isEmpty() && !a.origin.isEmpty(), qPrintable(a.id));
        QVERIFY2(a.explanation.size() > 150, qPrintable(a.id)); // a paragraph, not a label
        QVERIFY2(a.flaw.size() > 60, qPrintable(a.id));
        QVERIFY2(!a.commands.isEmpty(), qPrintable(a.id));
        QVERIFY2(a.defaults.validate().isEmpty(), qPrintable(a.id + u' ' + a.defaults.validate()));
        QVERIFY2(LockCatalog::check(a, a.defaults).isEmpty(), qPrintable(a.id));
        for (const QString &s : a.scripts)
            QVERIFY2(LuaScript::find(s), qPrintable(a.id + u' ' + s));
        // Scripts the lock objects run are the ones the catalog lists (the GUI shows these).
        LockClient client;
        auto lock = LockCatalog::create(a.id, client, "t", 1);
        QVERIFY(lock);
        for (const QString &s : lock->scriptNames())
            QVERIFY2(a.scripts.contains(s), qPrintable(a.id + u' ' + s));
    }
    QCOMPARE(LockCatalog::find(QStringLiteral("setnx-expire"))->defaults.wait, WaitStrategy::BusySpin);
    QCOMPARE(LockCatalog::find(QStringLiteral("set-nx-px-lua"))->defaults.retryIntervalMs, 50);
    QCOMPARE(LockCatalog::find(QStringLiteral("redisson-reentrant"))->defaults.leaseMs, 30000);
    QVERIFY(LockCatalog::find(QStringLiteral("redisson-reentrant"))->defaults.watchdog);
    QCOMPARE(LockCatalog::find(QStringLiteral("redisson-reentrant"))->defaults.effectiveWatchdogPeriodMs(),
             10000);
    QVERIFY(LockCatalog::find(QStringLiteral("redlock"))->multiServer);
}

void TestLockCatalog::json()
{
    const QJsonObject o = LockCatalog::find(QStringLiteral("fenced"))->toJson();
    QCOMPARE(o.value(QStringLiteral("id")).toString(), QStringLiteral("fenced"));
    QVERIFY(o.value(QStringLiteral("fencing")).toBool());
    QVERIFY(o.value(QStringLiteral("scripts")).toArray().contains(QStringLiteral("fenced_write")));
    QCOMPARE(o.value(QStringLiteral("defaults")).toObject().value(QStringLiteral("wait")).toString(),
             QStringLiteral("pubsub"));
}

void TestLockCatalog::factoryMakesEveryAlgorithm()
{
    LockClient client;
    for (const QString &id : LockCatalog::ids()) {
        QString error;
        auto lock = LockCatalog::create(id, client, "name", 42, &error);
        QVERIFY2(lock, qPrintable(error));
        QCOMPARE(lock->algorithm(), id);
        QCOMPARE(lock->name(), QByteArray("name"));
        QCOMPARE(lock->threadId(), 42);
        QVERIFY(!lock->isHeld());
        QVERIFY(lock->keys().contains("name"));
        QCOMPARE(!lock->waitChannel().isEmpty(), LockCatalog::find(id)->publishesRelease);
    }
}

void TestLockCatalog::factoryRefusesWhatCannotWork()
{
    LockClient client;
    QString error;
    QVERIFY(!LockCatalog::create(QStringLiteral("zookeeper"), client, "n", 1, &error));
    QVERIFY(error.contains(QLatin1String("unknown algorithm 'zookeeper'")));
    QVERIFY(error.contains(QLatin1String("redlock")));

    LockOptions o;
    o.wait = WaitStrategy::PubSub;
    QVERIFY(!LockCatalog::create(QStringLiteral("set-nx-px-lua"), client, "n", 1, o, &error));
    QVERIFY2(error.contains(QLatin1String("publishes nothing")), qPrintable(error));

    o = LockOptions {};
    o.watchdog = true;
    QVERIFY(!LockCatalog::create(QStringLiteral("redlock"), client, "n", 1, o, &error));

    o = LockOptions {};
    o.leaseMs = 300;
    o.watchdog = true;
    o.watchdogPeriodMs = 400;
    QVERIFY(!LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "n", 1, o, &error));
    QVERIFY2(error.contains(QLatin1String("watchdog_period_ms")), qPrintable(error));

    QVERIFY(
        !LockCatalog::create(QStringLiteral("redisson-reentrant"), client, "", 1, LockOptions {}, &error));
}

void TestLockCatalog::optionsFromJson()
{
    LockOptions o;
    QString error;
    QVERIFY2(
        LockOptions::fromJson(
            {{"lease_ms", 500}, {"wait", "backoff"}, {"rw_mode", "read"}, {"clock", "cached"}}, &o, &error),
        qPrintable(error));
    QCOMPARE(o.leaseMs, 500);
    QCOMPARE(o.wait, WaitStrategy::ExponentialBackoff);
    QCOMPARE(o.rwMode, LockOptions::RwMode::Read);
    QCOMPARE(o.clock, LockClock::Source::Cached);
    LockOptions back;
    QVERIFY(LockOptions::fromJson(o.toJson(), &back, &error));
    QCOMPARE(back.toJson(), o.toJson());

    LockOptions untouched;
    QVERIFY(!LockOptions::fromJson({{"lease_ms", "soon"}}, &untouched, &error));
    QVERIFY2(error.contains(QLatin1String("lease_ms")), qPrintable(error));
    QCOMPARE(untouched.leaseMs, 30000); // nothing lost on a bad document
    QVERIFY(!LockOptions::fromJson({{"wait", "sometimes"}}, &untouched, &error));
    QVERIFY2(error.contains(QLatin1String("busy-spin")), qPrintable(error));
    QVERIFY(!LockOptions::fromJson({{"leese_ms", 5}}, &untouched, &error));
    QVERIFY2(error.contains(QLatin1String("leese_ms")), qPrintable(error));
    QVERIFY(!LockOptions::fromJson({{"lease_ms", 0}}, &untouched, &error));
    QVERIFY2(error.contains(QLatin1String("lease_ms")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestLockCatalog)
#include "tst_lockcatalog.moc"
