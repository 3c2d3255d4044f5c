// ReadOnlyGuard proven against the live server's own command table: every command and sub-command Redis
// does not flag `readonly` is refused before a byte is sent (unless it is on a short, justified list of
// harmless ones), and an inspection under a least-privilege ACL user executes no write or admin command.
#include "inspect/lockscanjob.h"
#include "inspect/samplelocks.h"
#include "redis/readonlyguard.h"
#include "testsupport.h"
#include "sandboxfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

// One leaf of COMMAND: a command, or one sub-command ("config|set") of a container command.
struct CommandSpec
{
    QByteArray name; // lower case, "config|set" for a sub-command
    int arity = 0; // Redis' arity: > 0 exact, < 0 minimum (name and sub-command included)
    QSet<QByteArray> flags;
    QSet<QByteArray> categories;
    bool container = false; // has sub-commands (the leaf rows are listed separately)

    bool writesOrAdministers() const
    {
        return flags.contains("write") || flags.contains("admin") || categories.contains("@write")
            || categories.contains("@admin") || categories.contains("@dangerous");
    }
};

// Commands the guard allows although Redis does not flag them `readonly`, each with why that is safe. The
// test fails when an entry is no longer allowed or no longer exists, so the list cannot silently rot.
const QHash<QByteArray, const char *> &harmlessWithoutReadonlyFlag()
{
    static const QHash<QByteArray, const char *> list = [] {
        QHash<QByteArray, const char *> h;
        const char *ownConnection = "changes only this connection's own state";
        for (const char *c : {"ping", "echo", "auth", "hello", "select", "quit", "reset", "readonly",
                              "readwrite", "asking", "client|setname", "client|getname", "client|id",
                              "client|info", "client|trackinginfo", "client|getredir"})
            h.insert(c, ownConnection);
        const char *listening = "listens to pub/sub or counts listeners; publishing is refused";
        for (const char *c : {"subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe",
                              "sunsubscribe", "pubsub|channels", "pubsub|numsub", "pubsub|numpat",
                              "pubsub|shardchannels", "pubsub|shardnumsub"})
            h.insert(c, listening);
        const char *facts = "reads server facts (flagged admin because they reveal configuration)";
        for (const char *c : {"info",
                              "time",
                              "lastsave",
                              "role",
                              "config|get",
                              "slowlog|get",
                              "slowlog|len",
                              "latency|doctor",
                              "latency|graph",
                              "latency|histogram",
                              "latency|latest",
                              "latency|history",
                              "memory|doctor",
                              "memory|stats",
                              "acl|cat",
                              "acl|whoami",
                              "script|exists",
                              "command|count",
                              "command|docs",
                              "command|getkeys",
                              "command|getkeysandflags",
                              "command|info",
                              "command|list"})
            h.insert(c, facts);
        const char *topology = "reads cluster topology";
        for (const char *c : {"cluster|countkeysinslot", "cluster|replicas", "cluster|slaves", "cluster|myid",
                              "cluster|keyslot", "cluster|shards", "cluster|nodes", "cluster|getkeysinslot",
                              "cluster|slots", "cluster|info", "cluster|links"})
            h.insert(c, topology);
        h.insert("wait",
                 "waits for replicas to acknowledge this connection's writes, of which there are none");
        return h;
    }();
    return list;
}

bool isHelp(const QByteArray &name)
{
    return name.endsWith("|help"); // usage text only
}

void collect(const RedisReply &entry, QList<CommandSpec> *out)
{
    CommandSpec spec;
    spec.name = entry.at(0).bytes().toLower();
    spec.arity = int(entry.at(1).toInteger());
    for (const RedisReply &f : entry.at(2).elements())
        spec.flags.insert(f.bytes());
    for (const RedisReply &c : entry.at(6).elements())
        spec.categories.insert(c.bytes());
    const bool hasSubcommands = entry.size() > 9 && entry.at(9).size() > 0;
    spec.container = hasSubcommands;
    out->append(spec);
    if (hasSubcommands) {
        for (const RedisReply &sub : entry.at(9).elements())
            collect(sub, out);
    }
}

// The arguments of a well-formed call: name (and sub-command), then placeholders up to the arity.
RedisCommand callOf(const CommandSpec &spec)
{
    RedisCommand args;
    for (const QByteArray &part : spec.name.split('|'))
        args << part.toUpper();
    const int wanted = spec.arity > 0 ? spec.arity : -spec.arity;
    while (args.size() < wanted)
        args << "lockscope-probe";
    return args;
}

// Every counter of INFO commandstats ("cmdstat_set:calls=3,usec=12,...,rejected_calls=0,failed_calls=0")
// plus total_commands_processed: anything the server executed or rejected shows up here.
QHash<QByteArray, QByteArray> serverCounters(RedisConnection &admin)
{
    QHash<QByteArray, QByteArray> counters;
    const RedisResult r = admin.command({"INFO", "all"});
    for (QByteArray line : r.reply.bytes().split('\n')) {
        line = line.trimmed();
        if (line.startsWith("cmdstat_")) {
            const qsizetype colon = line.indexOf(':');
            QByteArray values;
            for (const QByteArray &field : line.mid(colon + 1).split(',')) {
                if (field.contains("calls=")) // usec figures drift; call counts must not
                    values += field + ',';
            }
            counters.insert(line.left(colon), values);
        } else if (line.startsWith("total_commands_processed:")) {
            counters.insert("total", line.mid(25));
        }
    }
    return counters;
}

QHash<QByteArray, qint64> callsByCommand(RedisConnection &admin)
{
    QHash<QByteArray, qint64> calls;
    const RedisResult r = admin.command({"INFO", "commandstats"});
    for (QByteArray line : r.reply.bytes().split('\n')) {
        line = line.trimmed();
        if (!line.startsWith("cmdstat_"))
            continue;
        const qsizetype colon = line.indexOf(':');
        const qsizetype at = line.indexOf("calls=");
        calls.insert(line.mid(8, colon - 8), line.mid(at + 6, line.indexOf(',', at) - at - 6).toLongLong());
    }
    return calls;
}

} // namespace

class TestReadOnlyGuardLive : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void everyNonReadOnlyCommandIsRefusedBeforeSending();
    void everyAllowedCommandIsReadOnlyOrJustified();
    void writeishSubcommandsAreRefused_data();
    void writeishSubcommandsAreRefused();
    void inspectionUnderLeastPrivilegeUserExecutesNoWrites();

private:
    SandboxServer m_server;
    QList<CommandSpec> m_commands;
    QHash<QByteArray, CommandSpec> m_byName;
};

void TestReadOnlyGuardLive::initTestCase()
{
    LS_START(m_server);
    RedisConnection admin(m_server.connectionSettings());
    LS_OPEN(admin);
    const RedisResult table = admin.command({"COMMAND"});
    QVERIFY2(table.ok(), qPrintable(table.error.message()));
    for (const RedisReply &entry : table.reply.elements())
        collect(entry, &m_commands);
    for (const CommandSpec &spec : m_commands)
        m_byName.insert(spec.name, spec);
    // Redis 7.0 lists 240 commands and ~350 leaves; far fewer means the table was not read properly.
    QVERIFY2(m_commands.size() > 300, qPrintable(QString::number(m_commands.size())));
}

void TestReadOnlyGuardLive::everyNonReadOnlyCommandIsRefusedBeforeSending()
{
    RedisConnection admin(m_server.connectionSettings());
    LS_OPEN(admin);
    RedisConnection reader(m_server.connectionSettings());
    reader.setReadOnly(true); // sandbox settings are read-write; a user's server gets read-only by default
    LS_OPEN(reader);
    const QHash<QByteArray, QByteArray> before = serverCounters(admin);
    const quint64 sentBefore = reader.commandsSent();

    int refused = 0;
    int writeOrAdmin = 0;
    QStringList holes;
    for (const CommandSpec &spec : std::as_const(m_commands)) {
        const bool readOnly = spec.flags.contains("readonly") && !spec.flags.contains("write");
        if (readOnly || harmlessWithoutReadonlyFlag().contains(spec.name) || isHelp(spec.name))
            continue;
        const RedisCommand call = callOf(spec);
        RedisCommand lower = call;
        lower[0] = lower[0].toLower();
        if (spec.name.contains('|'))
            lower[1] = lower[1].toLower();
        RedisCommand mixed = call;
        mixed[0][0] = char(mixed[0][0] | 0x20); // "sET", "cONFIG SET"
        for (const RedisCommand &form : {call, lower, mixed}) {
            const RedisResult r = reader.command(form);
            if (r.error.code() != RedisError::Code::ReadOnlyRefused)
                holes << QString::fromLatin1(form.join(' ')) + QStringLiteral(" → ") + r.error.message();
            if (!reader.append(form)) // streaming form
                holes << QStringLiteral("append: ") + QString::fromLatin1(form.join(' '));
        }
        // A pipeline with one refused command sends nothing at all, not even the reads before it.
        const QList<RedisResult> piped = reader.pipeline({{"GET", "k"}, call});
        if (piped.size() != 2 || piped.at(0).error.code() != RedisError::Code::ReadOnlyRefused)
            holes << QStringLiteral("pipeline: ") + QString::fromLatin1(call.join(' '));
        ++refused;
        writeOrAdmin += spec.writesOrAdministers() ? 1 : 0;
    }
    QVERIFY2(holes.isEmpty(), qPrintable(holes.join('\n')));
    QCOMPARE(reader.commandsSent(), sentBefore);
    QCOMPARE(reader.pendingReplies(), 0);
    // Nothing reached the server: every counter is as it was, except the admin's own INFO.
    QHash<QByteArray, QByteArray> after = serverCounters(admin);
    QCOMPARE(after.value("total").toLongLong(), before.value("total").toLongLong() + 1);
    after.remove("total");
    after.remove("cmdstat_info");
    QHash<QByteArray, QByteArray> expected = before;
    expected.remove("total");
    expected.remove("cmdstat_info");
    QCOMPARE(after, expected);
    // Redis 7.0: ~150 write/admin/dangerous leaves, more non-readonly ones; both must have been tried.
    QVERIFY2(writeOrAdmin > 120, qPrintable(QString::number(writeOrAdmin)));
    QVERIFY(refused >= writeOrAdmin);
    qInfo("refused %d commands before sending (%d flagged write/admin/dangerous), 3 spellings and a pipeline "
          "each",
          refused, writeOrAdmin);
    // And the connection is still fine for reads.
    QVERIFY(reader.command({"PING"}).ok());
}

void TestReadOnlyGuardLive::everyAllowedCommandIsReadOnlyOrJustified()
{
    QStringList unjustified;
    for (const CommandSpec &spec : std::as_const(m_commands)) {
        const RedisCommand call = callOf(spec);
        if (!ReadOnlyGuard::allows(call))
            continue;
        QVERIFY2(!spec.container, spec.name.constData()); // a container alone is never allowed
        QVERIFY2(!spec.flags.contains("write"), spec.name.constData()); // never, whatever the list says
        if (!spec.flags.contains("readonly") && !harmlessWithoutReadonlyFlag().contains(spec.name)
            && !isHelp(spec.name))
            unjustified << QString::fromLatin1(spec.name);
    }
    QVERIFY2(unjustified.isEmpty(), qPrintable(unjustified.join(' ')));
    // The justified list holds no stale entries: each exists on this server and is allowed.
    for (auto it = harmlessWithoutReadonlyFlag().constBegin(); it != harmlessWithoutReadonlyFlag().constEnd();
         ++it) {
        QVERIFY2(m_byName.contains(it.key()), it.key().constData());
        QVERIFY2(ReadOnlyGuard::allows(callOf(m_byName.value(it.key()))), it.key().constData());
    }
    // Every entry of the guard's own allow-list that this server knows is read-only or justified.
    for (const QString &entry : ReadOnlyGuard::allowList()) {
        const QByteArray name = entry.toLower().toLatin1();
        if (!m_byName.contains(name))
            continue; // SENTINEL on a plain server, sub-commands of newer servers
        const CommandSpec &spec = m_byName[name];
        QVERIFY2(spec.flags.contains("readonly") || harmlessWithoutReadonlyFlag().contains(name)
                     || isHelp(name),
                 name.constData());
    }
}

void TestReadOnlyGuardLive::writeishSubcommandsAreRefused_data()
{
    // The ones a reviewer would name first; the exhaustive test above covers them too, but a change in the
    // server's flags must not quietly drop them.
    QTest::addColumn<QByteArray>("command");
    for (const char *c : {"CONFIG SET maxmemory 1",
                          "CONFIG RESETSTAT",
                          "CONFIG REWRITE",
                          "CLIENT KILL ID 1",
                          "CLIENT PAUSE 10",
                          "CLIENT NO-EVICT on",
                          "CLIENT REPLY OFF",
                          "CLIENT TRACKING on",
                          "CLIENT UNBLOCK 1",
                          "SCRIPT FLUSH",
                          "SCRIPT LOAD x",
                          "SCRIPT KILL",
                          "FUNCTION LOAD x",
                          "FUNCTION FLUSH",
                          "FUNCTION DELETE x",
                          "FUNCTION RESTORE x",
                          "FUNCTION KILL",
                          "XGROUP CREATE s g $",
                          "XGROUP DESTROY s g",
                          "XGROUP SETID s g $",
                          "XGROUP CREATECONSUMER s g c",
                          "XGROUP DELCONSUMER s g c",
                          "XAUTOCLAIM s g c 0 0",
                          "XCLAIM s g c 0 1-1",
                          "XACK s g 1-1",
                          "OBJECT",
                          "MEMORY PURGE",
                          "MEMORY MALLOC-STATS",
                          "ACL SETUSER x",
                          "ACL DELUSER x",
                          "ACL SAVE",
                          "ACL LOAD",
                          "ACL LOG RESET",
                          "ACL LIST",
                          "ACL GETUSER default",
                          "SLOWLOG RESET",
                          "LATENCY RESET",
                          "CLUSTER FAILOVER",
                          "CLUSTER MEET 1 2",
                          "MODULE LOAD x",
                          "DEBUG SLEEP 0",
                          "MONITOR",
                          "SYNC",
                          "PSYNC ? -1",
                          "REPLICAOF no one",
                          "SLAVEOF no one",
                          "BGSAVE",
                          "SAVE",
                          "BGREWRITEAOF",
                          "FAILOVER",
                          "PUBLISH c m",
                          "SPUBLISH c m",
                          "KEYS *",
                          "MULTI",
                          "EXEC",
                          "WATCH k",
                          "GETDEL k",
                          "GETEX k PX 1",
                          "SORT k STORE d",
                          "EVAL_RO x 0",
                          "FCALL_RO f 0"})
        QTest::newRow(c) << QByteArray(c);
}

void TestReadOnlyGuardLive::writeishSubcommandsAreRefused()
{
    QFETCH(QByteArray, command);
    QString reason;
    QVERIFY(!ReadOnlyGuard::allows(command.split(' '), &reason));
    QVERIFY2(reason.contains(QLatin1String("read-only")), qPrintable(reason));
}

void TestReadOnlyGuardLive::inspectionUnderLeastPrivilegeUserExecutesNoWrites()
{
    SandboxFixture server;
    LS_SANDBOX(server);
    RedisConnection &admin = server.admin();
    QVERIFY(SampleLocks::writeDemoSet(admin));
    QVERIFY(SampleLocks::fill(admin, "noise:", 300));
    // The exact ACL line docs/security.md recommends.
    QVERIFY(TestSupport::addReadOnlyUser(admin, "oncall", "least-pw"));
    QVERIFY(admin.command({"CONFIG", "RESETSTAT"}).ok());

    ConnectionSettings s = server.connectionSettings();
    s.user = QStringLiteral("oncall");
    s.password = QStringLiteral("least-pw");
    s.readOnly = true;
    RedisConnection viewer(s);
    LS_OPEN(viewer);
    LockScanJob job(viewer, ScanOptions {});
    int locks = 0;
    for (int guard = 0; !job.atEnd() && guard < 10000; ++guard)
        locks += int(job.nextPage().size());
    QVERIFY2(!job.error(), qPrintable(job.error().message()));
    QVERIFY(locks > 5);

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LS_PW"), QStringLiteral("least-pw"));
    const auto cli = TestSupport::run(TestSupport::cliPath(),
                                      {"inspect", "--port", QString::number(server.port()), "--user",
                                       "oncall", "--password-env", "LS_PW", "--json"},
                                      env);
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    QVERIFY(QJsonDocument::fromJson(cli.out.toUtf8()).object().value("locks").toArray().size() > 5);

    // Every command the server executed since the reset (the scan, the CLI, and the admin's one INFO) is
    // flagged read-only or is one of the justified harmless ones; none writes or administers.
    const QHash<QByteArray, qint64> calls = callsByCommand(admin);
    QVERIFY(calls.value("scan") > 0);
    QStringList offenders;
    for (auto it = calls.constBegin(); it != calls.constEnd(); ++it) {
        const CommandSpec spec = m_byName.value(it.key());
        const bool fine = (spec.flags.contains("readonly") && !spec.flags.contains("write"))
            || harmlessWithoutReadonlyFlag().contains(it.key());
        if (it.key() == "config|resetstat")
            continue; // the admin's own reset, counted after it ran
        if (!fine)
            offenders << QStringLiteral("%1 ×%2").arg(QString::fromLatin1(it.key())).arg(it.value());
    }
    QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(", ")));
    QCOMPARE(TestSupport::writeCommandCalls(admin), 0);
}

QTEST_GUILESS_MAIN(TestReadOnlyGuardLive)
#include "tst_readonlyguardlive.moc"
