// Helpers every test shares: starting sandboxes with a clear failure, reading server counters, running
// the real executables.
#pragma once

#include "redis/loopbackports.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"
#include "silentlistener.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTest>

// Starts `server` or fails the current test with the sandbox's own explanation.
#define LS_START(server) QVERIFY2((server).start(), qPrintable((server).errorString()))
// Opens `connection` or fails the current test with the connection's explanation.
#define LS_OPEN(connection) \
    do { \
        const RedisError lsOpenError = (connection).open(); \
        QVERIFY2(!lsOpenError, qPrintable(lsOpenError.message())); \
    } while (false)

namespace TestSupport {

// How many times the server executed `command` (lower case, e.g. "set"), from INFO commandstats.
qint64 commandCalls(RedisConnection &admin, const QByteArray &command);
// Sum of calls of every command the server flags as a write, from INFO commandstats + COMMAND INFO.
qint64 writeCommandCalls(RedisConnection &admin);

// Writes `count` plain locks lock:0, lock:1… (a UUID token each, 10 minutes left) in one pipeline: a
// keyspace big enough that a scan takes many pages. False if any SET failed.
bool writePlainLocks(RedisConnection &admin, int count);

// Creates (or resets) an ACL user who may read and inspect but not write, as docs/security.md recommends
// (read commands, INFO, DBSIZE, PUBSUB NUMSUB, SUBSCRIBE), plus any `extraRules` (e.g. "-pttl" to take one
// away). False if the server refused.
bool addReadOnlyUser(RedisConnection &admin, const QByteArray &user, const QByteArray &password,
                     const QList<QByteArray> &extraRules = {});
// Creates the user "viewer" (password "pw") who may read keys, subscribe and manage its own connection, and
// nothing else: no CONFIG GET, no INFO, so the tests see how LockScope copes without them. False if
// the server refused.
bool addViewerUser(RedisConnection &admin);

// Opens `connection` (which must dial `listener`, directly or through a tunnel) and interrupts it from
// another thread as soon as the listener sees the connection: open() is then surely blocked on a peer that
// never answers. Returns open()'s result and how long it took.
RedisError openAndInterruptOnceConnected(RedisConnection &connection, const SilentListener &listener,
                                         qint64 *elapsedMs);

// Whether process `pid` is present and not a zombie (a zombie still answers kill(pid, 0)).
bool processAlive(qint64 pid);
// Threads of the test process right now (/proc/self/task): for "this started no thread" and "all joined".
int threadsOfThisProcess();

struct ProcessRun
{
    int exitCode = -1;
    bool finished = false;
    QString out;
    QString err;
};
// Runs a built executable (path from the environment ctest sets) and captures its output.
ProcessRun run(const QString &program, const QStringList &arguments,
               const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
               int timeoutMs = 60000);
QString cliPath(); // $LOCKSCOPE_CLI
QString appPath(); // $LOCKSCOPE_APP

} // namespace TestSupport
