// LuaScript: every bundled script is there, compiles on a real server with the SHA1 we compute, runs with
// EVALSHA, falls back on NOSCRIPT, and is refused on a read-only connection before anything is sent.
#include "locktestsupport.h"

#include "locks/lockcatalog.h"
#include "locks/lockio.h"
#include "locks/luascript.h"

class TestLuaScript : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void bundledScripts();
    void catalogScriptsExist();
    void everyScriptLoadsWithOurSha();
    void evalshaWithNoscriptFallback();
    void trailingCommandsRideAlong();
    void readOnlyConnectionSendsNothing();

private:
    SandboxServer m_server;
    std::unique_ptr<RedisConnection> m_admin;
};

void TestLuaScript::initTestCase()
{
    LS_START(m_server);
    m_admin = std::make_unique<RedisConnection>(m_server.connectionSettings());
    LS_OPEN(*m_admin);
}

void TestLuaScript::bundledScripts()
{
    const QStringList names = LuaScript::names();
    QCOMPARE(names.size(), 15);
    QVERIFY(names.contains(QStringLiteral("compare_and_delete")));
    QVERIFY(names.contains(QStringLiteral("redisson_unlock")));
    for (const QString &name : names) {
        const LuaScript *s = LuaScript::find(name);
        QVERIFY(s);
        QCOMPARE(s->name(), name);
        QCOMPARE(s->resourcePath(), QStringLiteral(":/lua/%1.lua").arg(name));
        QVERIFY2(s->source().startsWith("-- " + name.toUtf8() + ".lua: "),
                 qPrintable(name)); // says what it is for
        QVERIFY(s->source().contains("KEYS[1]"));
        QCOMPARE(s->sha1().size(), 40);
    }
    QVERIFY(!LuaScript::find(QStringLiteral("no_such_script")));
}

void TestLuaScript::catalogScriptsExist()
{
    for (const LockAlgorithmInfo &a : LockCatalog::all()) {
        for (const QString &name : a.scripts)
            QVERIFY2(LuaScript::find(name), qPrintable(a.id + QStringLiteral(": ") + name));
    }
}

void TestLuaScript::everyScriptLoadsWithOurSha()
{
    QVERIFY(m_admin->command({"SCRIPT", "FLUSH"}).ok());
    const RedisError e = LuaScript::loadAll(*m_admin, LuaScript::names());
    QVERIFY2(!e, qPrintable(e.message()));
    RedisCommand exists {"SCRIPT", "EXISTS"};
    for (const QString &name : LuaScript::names())
        exists << LuaScript::get(name).sha1();
    const RedisReply r = m_admin->command(exists).reply;
    QCOMPARE(r.size(), LuaScript::names().size());
    for (const RedisReply &one : r.elements())
        QCOMPARE(one.toInteger(), 1);
    QCOMPARE(LuaScript::loadAll(*m_admin, {QStringLiteral("nope")}).code(), RedisError::Code::BadArgument);
}

void TestLuaScript::evalshaWithNoscriptFallback()
{
    const LuaScript &cad = LuaScript::get(QStringLiteral("compare_and_delete"));
    QVERIFY(m_admin->command({"SET", "t:k", "mine"}).ok());
    QVERIFY(m_admin->command({"SCRIPT", "FLUSH"}).ok());
    const qint64 loadsBefore = TestSupport::commandCalls(*m_admin, "script|load");
    FaultHooks none;
    LockIo io(none, 1);
    RedisResult r = io.script(*m_admin, cad, {"t:k"}, {"other"});
    QVERIFY(r.ok());
    QCOMPARE(r.reply.toInteger(), -1); // someone else's value: untouched
    QCOMPARE(io.commands(), 3); // EVALSHA (NOSCRIPT), SCRIPT LOAD, EVALSHA
    QCOMPARE(TestSupport::commandCalls(*m_admin, "script|load"), loadsBefore + 1);
    r = io.script(*m_admin, cad, {"t:k"}, {"mine"});
    QCOMPARE(r.reply.toInteger(), 1);
    QCOMPARE(io.commands(), 4); // loaded now: one EVALSHA
    QCOMPARE(io.script(*m_admin, cad, {"t:k"}, {"mine"}).reply.toInteger(), 0);
}

void TestLuaScript::trailingCommandsRideAlong()
{
    QVERIFY(m_admin->command({"SCRIPT", "FLUSH"}).ok());
    QVERIFY(m_admin->command({"SET", "t:trail", "x"}).ok());
    FaultHooks none;
    LockIo io(none, 1);
    QList<RedisResult> after;
    const RedisResult r = io.script(*m_admin, LuaScript::get(QStringLiteral("compare_and_delete")),
                                    {"t:none"}, {"v"}, {{"DEL", "t:trail"}}, &after);
    QVERIFY(r.ok());
    QCOMPARE(r.reply.toInteger(), 0);
    QCOMPARE(after.size(), 1);
    QVERIFY(!LockTest::exists(*m_admin, "t:trail"));
}

void TestLuaScript::readOnlyConnectionSendsNothing()
{
    ConnectionSettings settings = m_server.connectionSettings();
    settings.readOnly = true;
    RedisConnection ro(settings);
    LS_OPEN(ro);
    const qint64 before = TestSupport::commandCalls(*m_admin, "evalsha");
    const RedisResult r = LuaScript::get(QStringLiteral("compare_and_delete")).run(ro, {"t:k"}, {"v"});
    QCOMPARE(r.error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(LuaScript::get(QStringLiteral("redisson_lock")).load(ro).code(),
             RedisError::Code::ReadOnlyRefused);
    QCOMPARE(LockIo::requireWritable(&ro).code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(TestSupport::commandCalls(*m_admin, "evalsha"), before);
}

QTEST_GUILESS_MAIN(TestLuaScript)
#include "tst_luascript.moc"
