// LuaScript: every bundled script is there, compiles on a real server with the SHA1 we compute, runs with
// EVALSHA, falls back on NOSCRIPT, goes as EVAL where EVALSHA or SCRIPT LOAD is refused, and is refused on a
// read-only connection before anything is sent.
#include "locktestsupport.h"
#include "sandboxfixture.h"

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
    void refusedEvalshaSwitchesTheConnectionToEval_data();
    void refusedEvalshaSwitchesTheConnectionToEval();
    void refusedScriptLoadSwitchesTheConnectionToEval();

private:
    SandboxFixture m_server;
};

void TestLuaScript::initTestCase()
{
    LS_SANDBOX(m_server);
}

void TestLuaScript::bundledScripts()
{
    const QStringList names = LuaScript::names();
    QCOMPARE(names.size(), 16);
    QVERIFY(names.contains(QStringLiteral("compare_and_delete")));
    QVERIFY(names.contains(QStringLiteral("redisson_unlock")));
    QVERIFY(names.contains(QStringLiteral("fenced_read")));
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
    QVERIFY(m_server.admin().command({"SCRIPT", "FLUSH"}).ok());
    const RedisError e = LuaScript::loadAll(m_server.admin(), LuaScript::names());
    QVERIFY2(!e, qPrintable(e.message()));
    RedisCommand exists {"SCRIPT", "EXISTS"};
    for (const QString &name : LuaScript::names())
        exists << LuaScript::get(name).sha1();
    const RedisReply r = m_server.admin().command(exists).reply;
    QCOMPARE(r.size(), LuaScript::names().size());
    for (const RedisReply &one : r.elements())
        QCOMPARE(one.toInteger(), 1);
    QCOMPARE(LuaScript::loadAll(m_server.admin(), {QStringLiteral("nope")}).code(),
             RedisError::Code::BadArgument);
}

void TestLuaScript::evalshaWithNoscriptFallback()
{
    const LuaScript &cad = LuaScript::get(QStringLiteral("compare_and_delete"));
    QVERIFY(m_server.admin().command({"SET", "t:k", "mine"}).ok());
    QVERIFY(m_server.admin().command({"SCRIPT", "FLUSH"}).ok());
    const qint64 loadsBefore = TestSupport::commandCalls(m_server.admin(), "script|load");
    FaultHooks none;
    LockIo io(none, 1);
    RedisResult r = io.script(m_server.admin(), cad, {"t:k"}, {"other"});
    QVERIFY(r.ok());
    QCOMPARE(r.reply.toInteger(), -1); // someone else's value: untouched
    QCOMPARE(io.commands(), 3); // EVALSHA (NOSCRIPT), SCRIPT LOAD, EVALSHA
    QCOMPARE(TestSupport::commandCalls(m_server.admin(), "script|load"), loadsBefore + 1);
    r = io.script(m_server.admin(), cad, {"t:k"}, {"mine"});
    QCOMPARE(r.reply.toInteger(), 1);
    QCOMPARE(io.commands(), 4); // loaded now: one EVALSHA
    QCOMPARE(io.script(m_server.admin(), cad, {"t:k"}, {"mine"}).reply.toInteger(), 0);
}

void TestLuaScript::trailingCommandsRideAlong()
{
    QVERIFY(m_server.admin().command({"SCRIPT", "FLUSH"}).ok());
    QVERIFY(m_server.admin().command({"SET", "t:trail", "x"}).ok());
    FaultHooks none;
    LockIo io(none, 1);
    QList<RedisResult> after;
    const RedisResult r = io.script(m_server.admin(), LuaScript::get(QStringLiteral("compare_and_delete")),
                                    {"t:none"}, {"v"}, {{"DEL", "t:trail"}}, &after);
    QVERIFY(r.ok());
    QCOMPARE(r.reply.toInteger(), 0);
    QCOMPARE(after.size(), 1);
    QVERIFY(!LockTest::exists(m_server.admin(), "t:trail"));
}

void TestLuaScript::readOnlyConnectionSendsNothing()
{
    ConnectionSettings settings = m_server.connectionSettings();
    settings.readOnly = true;
    RedisConnection ro(settings);
    LS_OPEN(ro);
    const qint64 before = TestSupport::commandCalls(m_server.admin(), "evalsha");
    const RedisResult r = LuaScript::get(QStringLiteral("compare_and_delete")).run(ro, {"t:k"}, {"v"});
    QCOMPARE(r.error.code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(LuaScript::get(QStringLiteral("redisson_lock")).load(ro).code(),
             RedisError::Code::ReadOnlyRefused);
    QCOMPARE(LockIo::requireWritable(&ro).code(), RedisError::Code::ReadOnlyRefused);
    QCOMPARE(TestSupport::commandCalls(m_server.admin(), "evalsha"), before);
}

void TestLuaScript::refusedEvalshaSwitchesTheConnectionToEval_data()
{
    QTest::addColumn<QStringList>("config");
    QTest::addColumn<QByteArrayList>("aclRules"); // for a user of our own, when not empty
    QTest::newRow("renamed") << QStringList {QStringLiteral("rename-command EVALSHA \"\"")}
                             << QByteArrayList();
    QTest::newRow("NOPERM") << QStringList() << QByteArrayList {"-evalsha"};
}

void TestLuaScript::refusedEvalshaSwitchesTheConnectionToEval()
{
    QFETCH(QStringList, config);
    QFETCH(QByteArrayList, aclRules);
    SandboxServer::Options o;
    o.configLines = config;
    SandboxServer server(o);
    LS_START(server);
    RedisConnection admin(server.connectionSettings());
    LS_OPEN(admin);
    ConnectionSettings settings = server.connectionSettings();
    if (!aclRules.isEmpty()) {
        RedisCommand setUser {"ACL", "SETUSER", "app", "on", ">pw", "~*", "&*", "+@all"};
        QVERIFY(admin.command(setUser << aclRules).ok());
        settings.user = QStringLiteral("app");
        settings.password = QStringLiteral("pw");
    }
    RedisConnection c(settings);
    LS_OPEN(c);
    const LuaScript &cad = LuaScript::get(QStringLiteral("compare_and_delete"));
    QVERIFY(c.command({"SET", "t:k", "mine"}).ok());
    FaultHooks none;
    LockIo io(none, 1);
    QCOMPARE(io.script(c, cad, {"t:k"}, {"other"}).reply.toInteger(), -1);
    QCOMPARE(io.commands(), 2); // EVALSHA (refused), EVAL
    QVERIFY(c.scriptsByEval());
    QCOMPARE(io.script(c, cad, {"t:k"}, {"mine"}).reply.toInteger(), 1);
    QCOMPARE(io.commands(), 3); // straight to EVAL from now on
    // With trailing commands in the same round trip (Redisson's unlock), on a connection still learning.
    RedisConnection fresh(settings);
    LS_OPEN(fresh);
    QVERIFY(fresh.command({"SET", "t:trail", "x"}).ok());
    LockIo io2(none, 1);
    QList<RedisResult> after;
    const RedisResult r = io2.script(fresh, cad, {"t:none"}, {"v"}, {{"DEL", "t:trail"}}, &after);
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(after.size(), 1);
    QVERIFY(fresh.scriptsByEval());
    QVERIFY(!LockTest::exists(admin, "t:trail"));
    QCOMPARE(TestSupport::commandCalls(admin, "evalsha"), 0);
}

void TestLuaScript::refusedScriptLoadSwitchesTheConnectionToEval()
{
    SandboxServer::Options o;
    o.configLines = {QStringLiteral("rename-command SCRIPT \"\"")};
    SandboxServer server(o);
    LS_START(server);
    // A connection that meets NOSCRIPT and then a refused SCRIPT LOAD switches. (First: a script run by EVAL
    // stays in the server's cache, and EVALSHA would then find it.)
    RedisConnection c(server.connectionSettings());
    LS_OPEN(c);
    FaultHooks none;
    LockIo io(none, 1);
    const RedisResult r
        = io.script(c, LuaScript::get(QStringLiteral("compare_and_delete")), {"t:none"}, {"v"});
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(io.commands(), 3); // EVALSHA (NOSCRIPT), SCRIPT LOAD (refused), EVAL
    QVERIFY(c.scriptsByEval());
    // The warm-up of a lock's prepare(): no error, the scripts will go as EVAL.
    RedisConnection warm(server.connectionSettings());
    LS_OPEN(warm);
    const RedisError e = LuaScript::loadAll(warm, {QStringLiteral("compare_and_pexpire")});
    QVERIFY2(!e, qPrintable(e.message()));
    QVERIFY(warm.scriptsByEval());
    const RedisResult extended
        = LuaScript::get(QStringLiteral("compare_and_pexpire")).run(warm, {"t:none"}, {"v", "1000"});
    QVERIFY2(extended.ok(), qPrintable(extended.error.message()));
}

QTEST_GUILESS_MAIN(TestLuaScript)
#include "tst_luascript.moc"
