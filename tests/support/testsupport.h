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

// Creates (or resets) an ACL user who may read and inspect but not write, as docs/security.md recommends
// (read commands, INFO, DBSIZE, PUBSUB NUMSUB, SUBSCRIBE), plus any `extraRules` (e.g. "-pttl" to take one
// away). False if the server refused.
bool addReadOnlyUser(RedisConnection &admin, const QByteArray &user, const QByteArray &password,
                     const QList<QByteArray> &extraRules = {});

// Opens `connection` (which must dial `listener`, directly or through a tunnel) and interrupts it from
// another thread as soon as the listener sees the connection: open() is then surely blocked on a peer that
// never answers. Returns open()'s result and how long it took.
RedisError openAndInterruptOnceConnected(RedisConnection &connection, const SilentListener &listener,
                                         qint64 *elapsedMs);

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
