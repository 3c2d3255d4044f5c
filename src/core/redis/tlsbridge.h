// TLS for hiredis 0.14, which has none: hiredis gets one end of a socketpair (redisConnectFd) and a bridge
// thread pumps the other end through an OpenSSL connection to the server. Everything above RedisConnection
// (inspector, simulator, CLI) works over TLS without knowing it.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"

#include <QDeadlineTimer>
#include <QMutex>
#include <QString>

#include <atomic>
#include <thread>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

class TlsBridge
{
public:
    TlsBridge();
    ~TlsBridge(); // stops the pump, then closes the TLS connection and every socket it still owns
    TlsBridge(const TlsBridge &) = delete;
    TlsBridge &operator=(const TlsBridge &) = delete;

    // Connects over TCP to `host:port`, completes the TLS handshake as `settings.tls` says (verifying the
    // certificate against settings.tlsName()) and starts the pump; all within settings.connectTimeoutMs.
    // `where` names the server in error messages (the real endpoint, not a tunnel's local port).
    RedisError open(const QString &host, int port, const ConnectionSettings &settings, const QString &where);
    // The plaintext end for hiredis. Ownership passes to the caller (redisFree closes it); -1 if not open.
    int takeClientFd();
    // Thread-safe: aborts a connect or handshake in progress, or stops the pump.
    void interrupt();
    // Why the pump stopped when the server side failed (a TLS alert, a reset), as a sentence; empty when it
    // has not failed. Thread-safe; set before the plaintext end reports end-of-file to hiredis.
    QString failure() const;
    // "TLSv1.3 TLS_AES_256_GCM_SHA384", once open.
    const QString &protocolDescription() const { return m_protocol; }

    // "OpenSSL 3.0.19 ...", for --version and the About box.
    static QString libraryVersion();

private:
    RedisError connectTcp(const QString &host, int port, const QString &where,
                          const QDeadlineTimer &deadline);
    RedisError setUpContext(const ConnectionSettings &settings, const QString &where);
    RedisError handshake(const ConnectionSettings &settings, const QString &where,
                         const QDeadlineTimer &deadline);
    RedisError handshakeFailure(int sslError, const ConnectionSettings &settings, const QString &where);
    // Waits for `events` on the TCP socket until the deadline: 1 ready, 0 timed out, -1 interrupted/error.
    int waitTcp(short events, const QDeadlineTimer &deadline);
    void pump();
    void setFailure(const QString &text);
    static int verifyCallback(int preverifyOk, struct x509_store_ctx_st *store);

    SSL_CTX *m_ctx = nullptr;
    SSL *m_ssl = nullptr;
    int m_tcpFd = -1;
    int m_bridgeFd = -1; // our end of the socketpair (non-blocking)
    int m_clientFd = -1; // hiredis' end until taken
    int m_wakeFd = -1; // eventfd: interrupt() and the destructor wake the pump or the handshake
    std::thread m_thread;
    std::atomic_bool m_stop = false;
    mutable QMutex m_failureMutex;
    QString m_failure;
    QString m_protocol;
    QString m_peerNames; // names the server's certificate carries, captured while verifying
    QString m_peerIssuer;
};
