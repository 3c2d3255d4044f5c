// A lock written by the user in Lua, on real sandbox Redis: a syntax error is named at its script and line
// before anything runs, an endless script is stopped and reported with the server answering again, the shipped
// textbook lock takes, refuses and releases as the convention says, a release that deletes whatever is there
// is found out by the explorer, the textbook lock under crashes is "none in N schedules", and a scenario
// carries its scripts inline through the parser and writer.
#include "explore/explorer.h"
#include "locks/customlockscripts.h"
#include "locks/lockcatalog.h"
#include "locks/lockclient.h"
#include "redis/sandboxserver.h"
#include "sim/scenarioparser.h"
#include "sim/simulationrunner.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class TestCustomLua : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void syntaxErrorIsNamedAtItsScriptAndLine();
    void endlessScriptIsStoppedAndTheServerAnswersAgain();
    void missingScriptAndBadSettingsAreRefused();
    void textbookLockFollowsTheConvention();
    void plainDeleteIsFoundOut();
    void textbookLockUnderCrashesIsNoneFoundNotSafe();
    void scenarioCarriesItsScriptsInline();
    void cliRefusesABrokenScriptWithExitTwo();

private:
    QString writeLock(const QString &name, const QByteArray &acquire, const QByteArray &release,
                      const QByteArray &renew = {}, const QByteArray &settings = {});
    static QString shipped(const QString &name);
    QTemporaryDir m_dir;
    SandboxServer m_server;
};

void TestCustomLua::initTestCase()
{
    QVERIFY(m_dir.isValid());
    LS_START(m_server);
}

QString TestCustomLua::writeLock(const QString &name, const QByteArray &acquire, const QByteArray &release,
                                 const QByteArray &renew, const QByteArray &settings)
{
    const QString dir = m_dir.filePath(name);
    QDir().mkpath(dir);
    const auto put = [&](const QString &file, const QByteArray &text) {
        if (text.isEmpty())
            return;
        QFile f(dir + u'/' + file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    put(QStringLiteral("acquire.lua"), acquire);
    put(QStringLiteral("release.lua"), release);
    put(QStringLiteral("renew.lua"), renew);
    put(QStringLiteral("lock.json"), settings);
    return dir;
}

// The starting points shipped in resources/locks/, as a user finds them.
QString TestCustomLua::shipped(const QString &name)
{
    return QStringLiteral(LOCKSCOPE_SOURCE_DIR "/resources/locks/") + name;
}

void TestCustomLua::syntaxErrorIsNamedAtItsScriptAndLine()
{
    const QString dir = writeLock(QStringLiteral("broken"), "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n",
                                  "local v = redis.call('GET', KEYS[1])\nif v == ARGV[1] then\n  return redis.call('DEL' KEYS[1])\nend\nreturn 0\n");
    CustomLockScripts::Problem problem;
    const auto scripts = CustomLockScripts::fromDirectory(dir, &problem);
    QVERIFY2(scripts, qPrintable(problem.text()));
    RedisConnection c(m_server.connectionSettings());
    QVERIFY(!c.open());
    problem = scripts->check(c);
    QVERIFY(problem.isSet());
    QCOMPARE(problem.script, QStringLiteral("release.lua"));
    QCOMPARE(problem.line, 3);
    QVERIFY2(problem.text().startsWith(QLatin1String("release.lua line 3: ")), qPrintable(problem.text()));
}

void TestCustomLua::endlessScriptIsStoppedAndTheServerAnswersAgain()
{
    const QString dir = writeLock(QStringLiteral("endless"), "while true do end\n", "return 0\n");
    CustomLockScripts::Problem problem;
    const auto scripts = CustomLockScripts::fromDirectory(dir, &problem);
    QVERIFY(scripts);
    RedisConnection c(m_server.connectionSettings());
    QVERIFY(!c.open());
    problem = scripts->check(c, 300);
    QCOMPARE(problem.script, QStringLiteral("acquire.lua"));
    QVERIFY2(problem.message.contains(QLatin1String("SCRIPT KILL")), qPrintable(problem.text()));
    // Stopped, not left running: the server answers everyone again.
    RedisConnection other(m_server.connectionSettings());
    QVERIFY(!other.open());
    const RedisResult pong = other.command({"PING"});
    QVERIFY2(pong.ok(), qPrintable(pong.error.message()));
    QCOMPARE(pong.reply.bytes(), QByteArray("PONG"));
}

void TestCustomLua::missingScriptAndBadSettingsAreRefused()
{
    CustomLockScripts::Problem problem;
    QVERIFY(!CustomLockScripts::fromDirectory(writeLock(QStringLiteral("half"), "return 1\n", {}), &problem));
    QCOMPARE(problem.script, QStringLiteral("release.lua"));
    QVERIFY(!CustomLockScripts::fromDirectory(m_dir.filePath(QStringLiteral("nowhere")), &problem));
    QVERIFY2(problem.text().contains(QLatin1String("no such folder")), qPrintable(problem.text()));
    QVERIFY(!CustomLockScripts::fromDirectory(
        writeLock(QStringLiteral("badjson"), "return 1\n", "return 1\n", {}, "{\"fenceing\": true}"), &problem));
    QCOMPARE(problem.script, QStringLiteral("lock.json"));
    QVERIFY2(problem.message.contains(QLatin1String("fenceing")), qPrintable(problem.text()));
}

void TestCustomLua::textbookLockFollowsTheConvention()
{
    CustomLockScripts::Problem problem;
    const auto scripts = CustomLockScripts::fromDirectory(shipped(QStringLiteral("textbook")), &problem);
    QVERIFY2(scripts, qPrintable(problem.text()));
    QVERIFY(scripts->renew());
    RedisConnection c(m_server.connectionSettings());
    QVERIFY(!c.open());
    problem = scripts->check(c);
    QVERIFY2(!problem.isSet(), qPrintable(problem.text()));

    // Through the catalog, as every worker of the simulator makes it.
    LockOptions options = LockCatalog::customLua().defaults;
    options.customScripts = scripts;
    options.leaseMs = 5000;
    options.acquireTimeoutMs = 0;
    LockClient client;
    QString error;
    auto mine = LockCatalog::create(LockCatalog::customLuaId(), client, "custom:lock", 1, options, &error);
    auto theirs = LockCatalog::create(LockCatalog::customLuaId(), client, "custom:lock", 2, options, &error);
    QVERIFY2(mine && theirs, qPrintable(error));
    QVERIFY(mine->tryAcquire(c).acquired());
    QCOMPARE(c.command({"GET", "custom:lock"}).reply.bytes(), mine->token());
    QCOMPARE(theirs->tryAcquire(c).outcome, AcquireResult::Outcome::Refused);
    QCOMPARE(theirs->release(c).outcome, ReleaseResult::Outcome::NotOwner);
    QVERIFY(c.command({"EXISTS", "custom:lock"}).reply.toInteger() == 1); // theirs touched nothing
    QCOMPARE(mine->extend(c, 9000).outcome, ExtendResult::Outcome::Extended);
    QVERIFY(c.command({"PTTL", "custom:lock"}).reply.toInteger() > 5000);
    QCOMPARE(mine->release(c).outcome, ReleaseResult::Outcome::Released);
    QCOMPARE(c.command({"EXISTS", "custom:lock"}).reply.toInteger(), 0);

    // Without its scripts the catalog refuses to make one.
    LockOptions none = LockCatalog::customLua().defaults;
    QVERIFY(!LockCatalog::create(LockCatalog::customLuaId(), client, "custom:lock", 3, none, &error));
    QVERIFY2(error.contains(QLatin1String("--lua")), qPrintable(error));
}

void TestCustomLua::plainDeleteIsFoundOut()
{
    CustomLockScripts::Problem problem;
    Explorer::Options o;
    o.target.lua = CustomLockScripts::fromDirectory(shipped(QStringLiteral("plain-del")), &problem);
    QVERIFY2(o.target.lua, qPrintable(problem.text()));
    o.faults = {ScheduledFault::Type::Pause};
    o.budgetS = 60; // a bound: the search stops at its first confirmed failure
    o.confirmRuns = 3;
    o.boundaryRuns = 3;
    o.storyRuns = 1;
    o.parallel = 2;
    Explorer explorer(o);
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(r.found, qPrintable(r.coverageText));
    QVERIFY2(r.property == QLatin1String("lost-update") || r.property == QLatin1String("overlap")
                 || r.property == QLatin1String("foreign-release"),
             qPrintable(r.property));
    QVERIFY(r.minimal.faults.size() <= 2);
    QVERIFY(r.reproducedViolated >= 1);
    // The story keeps the user's scripts with it, and replays.
    const std::optional<Scenario> story = explorer.story();
    QVERIFY(story);
    QVERIFY(story->algorithm.lua);
    Scenario parsed;
    QStringList problems;
    QVERIFY2(ScenarioParser().parse(ScenarioParser::toJson(*story), &parsed, &problems), qPrintable(problems.join(u'\n')));
    QVERIFY(parsed.algorithm.lua);
    QCOMPARE(parsed.algorithm.lua->release().source(), o.target.lua->release().source());
}

void TestCustomLua::textbookLockUnderCrashesIsNoneFoundNotSafe()
{
    CustomLockScripts::Problem problem;
    Explorer::Options o;
    o.target.lua = CustomLockScripts::fromDirectory(shipped(QStringLiteral("textbook")), &problem);
    QVERIFY2(o.target.lua, qPrintable(problem.text()));
    o.faults = {ScheduledFault::Type::Crash};
    o.maxSchedules = 12;
    o.budgetS = 120;
    o.parallel = 4;
    Explorer explorer(o);
    QString error;
    QVERIFY2(explorer.prepare(&error), qPrintable(error));
    const ExploreResult r = explorer.run();
    QVERIFY2(!r.found, qPrintable(r.sentence));
    QCOMPARE(r.schedulesTried, 12);
    const QString summary = ExploreResult::summaryOf(r.toJson());
    QVERIFY2(summary.contains(QLatin1String("in 12 schedules")), qPrintable(summary));
    QVERIFY2(!summary.contains(QLatin1String("safe"), Qt::CaseInsensitive), qPrintable(summary));
}

void TestCustomLua::scenarioCarriesItsScriptsInline()
{
    const QByteArray json = R"json({"lockscope_scenario": 1, "id": "mine", "title": "mine",
        "algorithm": {"id": "custom-lua", "lease_ms": 400,
                      "lua": {"acquire": "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
                              "release": "return redis.call('DEL', KEYS[1])"}},
        "workload": {"processes": 2, "duration_s": 0.5, "critical_section": {"ms": 5}},
        "resource": {"counter": true}})json";
    Scenario s;
    QStringList errors;
    QVERIFY2(ScenarioParser().parse(json, &s, &errors), qPrintable(errors.join(u'\n')));
    QVERIFY(s.algorithm.lua);
    Scenario again;
    QVERIFY2(ScenarioParser().parse(ScenarioParser::toJson(s), &again, &errors), qPrintable(errors.join(u'\n')));
    QCOMPARE(again.algorithm.lua->acquire().source(), s.algorithm.lua->acquire().source());
    // It runs, on the sandbox only.
    const SimulationRunner::Outcome run = SimulationRunner::run(s, Simulation::Options());
    QVERIFY2(run.ok(), qPrintable(run.error));
    Simulation::Options given;
    given.server = m_server.connectionSettings();
    const SimulationRunner::Outcome refused = SimulationRunner::run(s, given);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.contains(QLatin1String("sandbox")), qPrintable(refused.error));
    // Neither scripts nor a folder: a message that says what is missing.
    QVERIFY(!ScenarioParser().parse(R"({"lockscope_scenario": 1, "id": "x", "title": "x", "algorithm": {"id": "custom-lua"}})",
                                    &s, &errors));
    QVERIFY2(errors.join(u' ').contains(QLatin1String("custom-lua needs its scripts")), qPrintable(errors.join(u'\n')));
}

void TestCustomLua::cliRefusesABrokenScriptWithExitTwo()
{
    const QString dir = writeLock(QStringLiteral("clibroken"), "return redis.call('SET', KEYS[1], ARGV[1], 'NX' 'PX', ARGV[2])\n",
                                  "return redis.call('DEL', KEYS[1])\n");
    const QString report = m_dir.filePath(QStringLiteral("broken.json"));
    const auto r = TestSupport::run(TestSupport::cliPath(), {"explore", "--lua", dir, "--json", report, "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QLatin1String("acquire.lua line 1")), qPrintable(r.err));
    QVERIFY(!QFile::exists(report));
    // A server of the user's is refused for user Lua, before anything is sent.
    const auto given = TestSupport::run(TestSupport::cliPath(),
                                        {"explore", "--lua", shipped(QStringLiteral("textbook")), "--port",
                                         QString::number(m_server.port()), "--read-write", "--quiet"});
    QCOMPARE(given.exitCode, 2);
    QVERIFY2(given.err.contains(QLatin1String("sandboxes")), qPrintable(given.err));
}

QTEST_GUILESS_MAIN(TestCustomLua)
#include "tst_customlua.moc"
