// TestSupport implementation.
#include "testsupport.h"

#include "inspect/samplelocks.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>

#include <thread>

namespace TestSupport {

static QHash<QByteArray, qint64> commandStats(RedisConnection &admin)
{
    QHash<QByteArray, qint64> stats;
    const RedisResult r = admin.command({"INFO", "commandstats"});
    for (const QByteArray &line : r.reply.bytes().split('\n')) {
        // cmdstat_set:calls=3,usec=12,...
        if (!line.startsWith("cmdstat_"))
            continue;
        const qsizetype colon = line.indexOf(':');
        const QByteArray name = line.mid(8, colon - 8);
        const qsizetype callsAt = line.indexOf("calls=");
        const qsizetype comma = line.indexOf(',', callsAt);
        stats.insert(name, line.mid(callsAt + 6, comma - callsAt - 6).toLongLong());
    }
    return stats;
}

qint64 commandCalls(RedisConnection &admin, const QByteArray &command)
{
    return commandStats(admin).value(command.toLower(), 0);
}

qint64 writeCommandCalls(RedisConnection &admin)
{
    const QHash<QByteArray, qint64> stats = commandStats(admin);
    qint64 total = 0;
    for (auto it = stats.constBegin(); it != stats.constEnd(); ++it) {
        QByteArray name = it.key();
        if (name.contains('|'))
            name = name.left(name.indexOf('|'));
        const RedisResult info = admin.command({"COMMAND", "INFO", name});
        if (!info.ok() || info.reply.size() == 0 || !info.reply.at(0).isArray())
            continue;
        const RedisReply &flags = info.reply.at(0).at(2);
        for (const RedisReply &flag : flags.elements()) {
            if (flag.bytes() == "write") {
                total += it.value();
                break;
            }
        }
    }
    return total;
}

bool addReadOnlyUser(RedisConnection &admin, const QByteArray &user, const QByteArray &password,
                     const QList<QByteArray> &extraRules)
{
    RedisCommand command {"ACL",
                          "SETUSER",
                          user,
                          "reset",
                          "on",
                          ">" + password,
                          "~*",
                          "+@read",
                          "+@connection",
                          "+info",
                          "+dbsize",
                          "+pubsub|numsub",
                          "+pubsub|shardnumsub",
                          "+subscribe",
                          "+psubscribe"};
    command << extraRules;
    return admin.command(command).ok();
}

bool writePlainLocks(RedisConnection &admin, int count)
{
    QList<RedisCommand> locks;
    for (int i = 0; i < count; ++i)
        locks.append({"SET", "lock:" + QByteArray::number(i), SampleLocks::uuid1Hex(), "PX", "600000"});
    for (const RedisResult &r : admin.pipeline(locks)) {
        if (!r.ok())
            return false;
    }
    return true;
}

bool addViewerUser(RedisConnection &admin)
{
    return admin
        .command({"ACL", "SETUSER", "viewer", "on", ">pw", "~*", "&*", "-@all", "+@read", "+@pubsub",
                  "+@connection"})
        .ok();
}

RedisError openAndInterruptOnceConnected(RedisConnection &connection, const SilentListener &listener,
                                         qint64 *elapsedMs)
{
    std::thread interrupter([&] {
        if (listener.waitForConnection(30000))
            connection.interrupt();
    });
    QElapsedTimer timer;
    timer.start();
    const RedisError e = connection.open();
    *elapsedMs = timer.elapsed();
    interrupter.join();
    return e;
}

bool processAlive(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close > 0 && close + 2 < line.size() && line.at(close + 2) != 'Z';
}

int threadsOfThisProcess()
{
    return int(QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

ProcessRun run(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment,
               int timeoutMs)
{
    ProcessRun result;
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForStarted(10000)) {
        result.err = process.errorString();
        return result;
    }
    result.finished = process.waitForFinished(timeoutMs);
    if (!result.finished) {
        process.kill();
        process.waitForFinished();
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

QString cliPath()
{
    return qEnvironmentVariable("LOCKSCOPE_CLI");
}

QString appPath()
{
    return qEnvironmentVariable("LOCKSCOPE_APP");
}

} // namespace TestSupport
