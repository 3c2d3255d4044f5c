// The set-up most tests begin with: a sandbox redis-server of the test's own and one admin connection to it
// (read-write: the test writes the keys it then inspects), optionally filled with plain keys that are not
// locks. Use: `SandboxFixture server; LS_SANDBOX(server); RedisConnection &c = server.admin();`.
#pragma once

#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <QByteArray>
#include <QString>

#include <memory>

// A SandboxServer (pause, restart, kill, connectionSettings… all still there) that also owns the admin
// connection, so that a test names only what is particular to it.
class SandboxFixture : public SandboxServer
{
public:
    using SandboxServer::SandboxServer;

    // Starts the server and opens admin(); false with setupError() saying which of the two failed and why.
    bool startAndConnect();
    // startAndConnect(), then `keys` plain keys of every type named `prefix`0, `prefix`1… (SampleLocks::fill):
    // what a real server holds besides its locks.
    bool startFilled(int keys, const QByteArray &prefix = "f:");

    // Options for a server that publishes every key change (notify-keyspace-events KEA), as the live
    // Inspector and `inspect --watch` want; works for a plain SandboxServer too.
    static Options withKeyspaceEvents();
    // Options for a server that wants `password` from every client (requirepass).
    static Options withPassword(const QString &password);

    RedisConnection &admin() { return *m_admin; } // only after a successful start
    const QString &setupError() const { return m_setupError; }

private:
    std::unique_ptr<RedisConnection> m_admin;
    QString m_setupError;
};

// Starts `fixture` (and its admin connection) or fails the current test with the reason.
#define LS_SANDBOX(fixture) QVERIFY2((fixture).startAndConnect(), qPrintable((fixture).setupError()))
// The same, with `keys` plain keys besides (see SandboxFixture::startFilled).
#define LS_SANDBOX_FILLED(fixture, keys) \
    QVERIFY2((fixture).startFilled(keys), qPrintable((fixture).setupError()))
