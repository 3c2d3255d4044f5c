// One blocking connection to one Redis server (RAII over a hiredis context), over TCP, a Unix socket, TLS
// and/or an SSH tunnel, through Sentinel or not: RedisDialer reaches the server, this class speaks the
// protocol. Use it from one thread only; interrupt() is the one call that is safe from another thread. On a
// fiber of the event engine (FiberScheduler) a wait for a reply parks the fiber instead of blocking the thread.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"
#include "redisresult.h"

#include <QByteArray>
#include <QList>
#include <QMutex>

#include <atomic>
#include <memory>

struct redisContext;
class FiberScheduler;
class RedisDialer;

using RedisCommand = QList<QByteArray>;

class RedisConnection
{
public:
    explicit RedisConnection(const ConnectionSettings &settings);
    ~RedisConnection();
    RedisConnection(const RedisConnection &) = delete;
    RedisConnection &operator=(const RedisConnection &) = delete;

    // Connects, authenticates, selects the database and names the client. Returns the first error met.
    RedisError open();
    void close();
    RedisError reconnect();
    bool isOpen() const { return m_context != nullptr; }

    const ConnectionSettings &settings() const { return m_settings; }
    // settings().endpoint(), made once: hot paths (fault hooks, Redlock votes) ask for it on every command.
    const QString &endpoint() const { return m_endpoint; }
    bool isReadOnly() const { return m_settings.readOnly; }
    void setReadOnly(bool readOnly) { m_settings.readOnly = readOnly; }
    // When on (the default), a command on a connection that broke earlier reopens it first.
    void setAutoReconnect(bool on) { m_autoReconnect = on; }
    // Lua scripts go as EVAL with their source here: the server refused EVALSHA or SCRIPT LOAD (see
    // LuaScript), and asking again on every call would double the commands. Kept across reconnects: EVAL
    // works wherever EVALSHA does.
    bool scriptsByEval() const { return m_scriptsByEval; }
    void setScriptsByEval(bool on) { m_scriptsByEval = on; }
    RedisError setCommandTimeout(int ms);

    // One command, argument by argument (binary safe). Waits at most the command timeout.
    RedisResult command(const RedisCommand &args);
    // Sends all commands in one write, then reads one reply each. A read-only connection refuses the
    // whole pipeline before sending anything if one command in it is not allowed.
    QList<RedisResult> pipeline(const QList<RedisCommand> &commands);

    // Streaming form of pipelining: append any number of commands, then read their replies in order.
    RedisError append(const RedisCommand &args);
    RedisResult readReply();
    int pendingReplies() const { return m_pending; }
    // Waits up to `timeoutMs` for a reply (pub/sub messages). A timeout here leaves the connection usable.
    RedisResult readReply(int timeoutMs);

    // Thread-safe: makes a blocked call on this connection return at once with Interrupted.
    void interrupt();

    const RedisError &lastError() const { return m_lastError; }
    quint64 commandsSent() const { return m_commandsSent; }
    // Client id given by the server (CLIENT ID), or -1 when unknown.
    qint64 clientId() const { return m_clientId; }

    // "0.14.1": the hiredis LockScope was built with, for --version and the About box.
    static QString hiredisVersion();
    // "OpenSSL 3.0.19 27 Jan 2026": the TLS library used for TLS connections.
    static QString tlsLibraryVersion();
    // "TLSv1.3 TLS_AES_256_GCM_SHA384" while open over TLS, else empty.
    QString tlsProtocol() const;

private:
    RedisResult roundTrip(const RedisCommand &args);
    RedisError appendChecked(const RedisCommand &args); // append() without the read-only guard
    RedisError ensureOpen();
    RedisError guard(const RedisCommand &args) const;
    RedisError takeContextError();
    RedisResult resultFromRaw(void *raw);
    // A reply the reader has parsed already into `raw`, else everything appended written out: how both
    // waits for a reply that poll or park begin.
    RedisError takeParsedOrFlush(void **raw);
    // Writes m_unsent to the socket (what it cannot write now goes to hiredis' own buffer) and empties it.
    void sendUnsent();
    // readReply() on a fiber of the event engine: parks instead of blocking the thread.
    RedisResult readReplyOnFiber(FiberScheduler &fibers);
    RedisError handshake();
    RedisError fail(const RedisError &error);
    void dropContext();

    ConnectionSettings m_settings;
    QString m_endpoint;
    QByteArray m_unsent; // RESP of the commands appended and not yet written; its capacity is reused
    redisContext *m_context = nullptr;
    RedisError m_lastError;
    bool m_autoReconnect = true;
    bool m_scriptsByEval = false;
    bool m_everOpened = false;
    bool m_staleMaster = false; // through Sentinel: a replica refused a write, reopen before the next command
    int m_pending = 0;
    quint64 m_commandsSent = 0;
    qint64 m_clientId = -1;
    // interrupt() shuts the socket down from another thread; the mutex keeps the fd valid meanwhile.
    QMutex m_fdMutex;
    int m_fd = -1;
    // Sentinel, SSH tunnel and TLS bridge; kept across reconnects (a tunnel and a Sentinel watch are
    // reused). Set once in the constructor: interrupt() calls it from another thread.
    const std::unique_ptr<RedisDialer> m_dialer;
    std::atomic_bool m_interrupted = false;
};
