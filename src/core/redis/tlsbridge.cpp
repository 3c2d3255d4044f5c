// TlsBridge: TCP connect, OpenSSL handshake with clear failure texts, and the socketpair pump thread.
#include "tlsbridge.h"

#include "logging.h"
#include "tcpaddresses.h"

#include <QFile>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr int kBufferSize = 64 * 1024;

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

bool isIpLiteral(const QString &name)
{
    const QByteArray n = name.toLatin1();
    in6_addr buffer;
    return ::inet_pton(AF_INET, n.constData(), &buffer) == 1
        || ::inet_pton(AF_INET6, n.constData(), &buffer) == 1;
}

// The first error OpenSSL queued, as text ("error:0A000086:SSL routines::certificate verify failed").
QString opensslError(unsigned long code)
{
    if (code == 0)
        return {};
    char text[256];
    ERR_error_string_n(code, text, sizeof(text));
    const char *reason = ERR_reason_error_string(code);
    return reason ? QString::fromLatin1(reason) : QString::fromLatin1(text);
}

// Refuses to prompt on the terminal for a key passphrase: an encrypted key is reported as an error instead.
int noPassphrase(char *, int, int, void *)
{
    return 0;
}

QString certificateNames(X509 *cert)
{
    QStringList names;
    char cn[256] = {0};
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn)) > 0)
        names << QString::fromUtf8(cn);
    auto *sans = static_cast<GENERAL_NAMES *>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans); ++i) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(sans, i);
        if (name->type == GEN_DNS) {
            names << QString::fromUtf8(reinterpret_cast<const char *>(ASN1_STRING_get0_data(name->d.dNSName)),
                                       ASN1_STRING_length(name->d.dNSName));
        } else if (name->type == GEN_IPADD) {
            const int length = ASN1_STRING_length(name->d.iPAddress);
            char text[INET6_ADDRSTRLEN] = {0};
            if (::inet_ntop(length == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(name->d.iPAddress), text,
                            sizeof(text)))
                names << QString::fromLatin1(text);
        }
    }
    GENERAL_NAMES_free(sans);
    names.removeDuplicates();
    return names.join(QStringLiteral(", "));
}

// "-----BEGIN ENCRYPTED PRIVATE KEY-----" or the older "Proc-Type: 4,ENCRYPTED" header.
bool isEncryptedPem(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(4096).contains("ENCRYPTED");
}

QString issuerName(X509 *cert)
{
    char text[256] = {0};
    X509_NAME_oneline(X509_get_issuer_name(cert), text, sizeof(text));
    return QString::fromUtf8(text);
}

// A failure while talking (after the handshake): alerts the server sends, e.g. for a client certificate it
// wants or rejects (TLS 1.3 sends those only after the client thinks the handshake is done).
QString pumpFailureText(unsigned long code)
{
    switch (ERR_GET_REASON(code)) {
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
        return QStringLiteral(
            "the server requires a client certificate (TLS alert \"certificate required\"): "
            "give a client certificate and key (--cert, --key)");
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
        return QStringLiteral("the server does not trust our client certificate (TLS alert \"unknown CA\"): "
                              "it must be signed by a CA in the server's tls-ca-cert-file");
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
        return QStringLiteral("the server rejected our client certificate (TLS alert \"bad certificate\")");
    default:
        return QStringLiteral("TLS error: %1").arg(opensslError(code));
    }
}

} // namespace

QString TlsBridge::libraryVersion()
{
    return QString::fromLatin1(OpenSSL_version(OPENSSL_VERSION));
}

TlsBridge::TlsBridge()
{
    m_wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

TlsBridge::~TlsBridge()
{
    m_stop = true;
    interrupt();
    if (m_thread.joinable())
        m_thread.join();
    if (m_ssl)
        SSL_free(m_ssl);
    if (m_ctx)
        SSL_CTX_free(m_ctx);
    closeFd(m_tcpFd);
    closeFd(m_bridgeFd);
    closeFd(m_clientFd);
    closeFd(m_wakeFd);
}

void TlsBridge::interrupt()
{
    if (m_wakeFd >= 0) {
        const quint64 one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof(one));
    }
}

int TlsBridge::takeClientFd()
{
    const int fd = m_clientFd;
    m_clientFd = -1;
    return fd;
}

QString TlsBridge::failure() const
{
    QMutexLocker lock(&m_failureMutex);
    return m_failure;
}

void TlsBridge::setFailure(const QString &text)
{
    QMutexLocker lock(&m_failureMutex);
    if (m_failure.isEmpty())
        m_failure = text;
}

int TlsBridge::waitTcp(short events, const QDeadlineTimer &deadline)
{
    for (;;) {
        pollfd fds[2] = {{m_tcpFd, events, 0}, {m_wakeFd, POLLIN, 0}};
        const qint64 remaining = deadline.remainingTime();
        const int n = ::poll(fds, 2, remaining < 0 ? 0 : int(remaining));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (fds[1].revents & POLLIN))
            return -1;
        return n == 0 ? 0 : 1;
    }
}

RedisError TlsBridge::connectTcp(const QString &host, int port, const QString &where,
                                 const QDeadlineTimer &deadline)
{
    const TcpAddresses addresses(host, port);
    if (!addresses.first())
        return {RedisError::Code::HostNotFound,
                QStringLiteral("Host '%1' not found: %2").arg(host, addresses.errorString())};
    int lastErrno = 0;
    bool timedOut = false;
    for (const addrinfo *a = addresses.first(); a && m_tcpFd < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            lastErrno = errno;
            continue;
        }
        if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
            lastErrno = errno;
            closeFd(fd);
            continue;
        }
        m_tcpFd = fd;
        const int ready = waitTcp(POLLOUT, deadline);
        int soError = 0;
        socklen_t length = sizeof(soError);
        if (ready == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 && soError == 0)
            break;
        lastErrno = ready == 1 ? soError : 0;
        timedOut = ready == 0;
        closeFd(m_tcpFd);
        if (ready == -1)
            return {RedisError::Code::Interrupted,
                    QStringLiteral("Interrupted while connecting to %1").arg(where)};
        if (timedOut)
            break;
    }
    if (m_tcpFd >= 0) {
        const int on = 1;
        ::setsockopt(m_tcpFd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)); // small commands, no batching delay
        ::setsockopt(m_tcpFd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
        return {};
    }
    if (timedOut)
        return {RedisError::Code::Timeout,
                QStringLiteral("Could not connect to %1 within the connect timeout (host unreachable or "
                               "firewalled?)")
                    .arg(where)};
    if (lastErrno == ECONNREFUSED)
        return {
            RedisError::Code::ConnectionRefused,
            QStringLiteral("Connection refused by %1: no Redis server is listening there (is redis-server "
                           "running, and is this its tls-port?)")
                .arg(where)};
    return {
        RedisError::Code::ConnectFailed,
        QStringLiteral("Cannot connect to %1: %2").arg(where, QString::fromLocal8Bit(strerror(lastErrno)))};
}

int TlsBridge::verifyCallback(int preverifyOk, x509_store_ctx_st *store)
{
    auto *ssl = static_cast<SSL *>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
    auto *self = ssl ? static_cast<TlsBridge *>(SSL_get_app_data(ssl)) : nullptr;
    // The server's own certificate, whichever certificate of the chain is being checked now.
    X509 *cert = X509_STORE_CTX_get0_cert(store);
    if (self && cert) {
        self->m_peerNames = certificateNames(cert);
        self->m_peerIssuer = issuerName(cert);
    }
    return preverifyOk;
}

RedisError TlsBridge::setUpContext(const ConnectionSettings &settings, const QString &where)
{
    const ConnectionSettings::Tls &tls = settings.tls;
    auto failure = [&](const QString &what) {
        const QString detail = opensslError(ERR_peek_last_error());
        ERR_clear_error();
        return RedisError {RedisError::Code::Tls,
                           detail.isEmpty() ? what : QStringLiteral("%1: %2").arg(what, detail)};
    };
    ERR_clear_error();
    m_ctx = SSL_CTX_new(TLS_client_method());
    if (!m_ctx)
        return failure(QStringLiteral("Cannot set up TLS"));
    SSL_CTX_set_min_proto_version(m_ctx, TLS1_2_VERSION);
    SSL_CTX_set_default_passwd_cb(m_ctx, noPassphrase);
    if (tls.verifyPeer) {
        SSL_CTX_set_verify(m_ctx, SSL_VERIFY_PEER, verifyCallback);
        if (!tls.caFile.isEmpty()) {
            if (SSL_CTX_load_verify_locations(m_ctx, QFile::encodeName(tls.caFile).constData(), nullptr) != 1)
                return failure(QStringLiteral("Cannot read the TLS CA file %1 (PEM certificates expected)")
                                   .arg(tls.caFile));
        } else if (SSL_CTX_set_default_verify_paths(m_ctx) != 1) {
            return failure(QStringLiteral("Cannot load the system's trusted CA certificates"));
        }
    } else {
        SSL_CTX_set_verify(m_ctx, SSL_VERIFY_NONE, nullptr);
        qCInfo(lcRedis) << "TLS certificate verification is OFF for" << where; // the UI and CLI warn loudly
    }
    if (!tls.certFile.isEmpty()) {
        if (SSL_CTX_use_certificate_chain_file(m_ctx, QFile::encodeName(tls.certFile).constData()) != 1)
            return failure(
                QStringLiteral("Cannot use the TLS client certificate %1 (PEM expected)").arg(tls.certFile));
        if (isEncryptedPem(tls.keyFile))
            return {RedisError::Code::Tls,
                    QStringLiteral(
                        "The TLS key %1 is protected by a passphrase: LockScope needs an unencrypted PEM "
                        "key (e.g. openssl pkey -in key.pem -out plain.pem, kept mode 600)")
                        .arg(tls.keyFile)};
        if (SSL_CTX_use_PrivateKey_file(m_ctx, QFile::encodeName(tls.keyFile).constData(), SSL_FILETYPE_PEM)
            != 1) {
            // The useful reason is deep in the queue, under a generic "PEM lib".
            bool mismatch = false;
            for (unsigned long code = ERR_get_error(); code != 0 && !mismatch; code = ERR_get_error())
                mismatch
                    = ERR_GET_LIB(code) == ERR_LIB_X509 && ERR_GET_REASON(code) == X509_R_KEY_VALUES_MISMATCH;
            ERR_clear_error();
            if (mismatch)
                return {RedisError::Code::Tls,
                        QStringLiteral("The TLS key %1 does not belong to the certificate %2")
                            .arg(tls.keyFile, tls.certFile)};
            return {RedisError::Code::Tls,
                    QStringLiteral("Cannot use the TLS key %1: not a PEM private key").arg(tls.keyFile)};
        }
        if (SSL_CTX_check_private_key(m_ctx) != 1)
            return failure(QStringLiteral("The TLS key %1 does not belong to the certificate %2")
                               .arg(tls.keyFile, tls.certFile));
    }
    return {};
}

RedisError TlsBridge::handshakeFailure(int sslError, const ConnectionSettings &settings, const QString &where)
{
    const unsigned long code = ERR_peek_error();
    const int reason = ERR_GET_REASON(code);
    const long verify = SSL_get_verify_result(m_ssl);
    ERR_clear_error();
    const QString name = settings.tlsName();
    if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED && verify != X509_V_OK) {
        if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH)
            return {RedisError::Code::Tls,
                    QStringLiteral(
                        "TLS certificate of %1 is not valid for the name '%2' (it names: %3). Connect by "
                        "one of those names, or set the TLS server name (--sni) to one of them")
                        .arg(where, name, m_peerNames.isEmpty() ? QStringLiteral("nothing") : m_peerNames)};
        QString hint;
        if (verify == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
            || verify == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
            || verify == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
            || verify == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE)
            hint = settings.tls.caFile.isEmpty()
                ? QStringLiteral(": no CA the system trusts signed it; give the CA file that did (--cacert)")
                : QStringLiteral(": the CA file %1 does not hold the CA that signed it")
                      .arg(settings.tls.caFile);
        else if (verify == X509_V_ERR_CERT_HAS_EXPIRED)
            hint = QStringLiteral(": the server's certificate must be renewed");
        return {
            RedisError::Code::Tls,
            QStringLiteral("TLS certificate of %1 was rejected: %2%3%4")
                .arg(where, QString::fromLatin1(X509_verify_cert_error_string(verify)),
                     m_peerIssuer.isEmpty() ? QString() : QStringLiteral(" (issued by %1)").arg(m_peerIssuer),
                     hint)};
    }
    if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG
        || reason == SSL_R_HTTP_REQUEST || reason == SSL_R_UNSUPPORTED_PROTOCOL)
        return {RedisError::Code::Tls,
                QStringLiteral(
                    "%1 does not speak TLS (%2): is this the plain port? TLS needs the server's tls-port")
                    .arg(where, opensslError(code))};
    if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING || (sslError == SSL_ERROR_SYSCALL && code == 0))
        return {RedisError::Code::Tls,
                QStringLiteral(
                    "%1 closed the connection during the TLS handshake (does it speak TLS on this port, "
                    "and accept this TLS version?)")
                    .arg(where)};
    if (reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED || reason == SSL_R_TLSV1_ALERT_UNKNOWN_CA
        || reason == SSL_R_SSLV3_ALERT_BAD_CERTIFICATE)
        return {RedisError::Code::Tls,
                QStringLiteral("TLS handshake with %1 failed: %2").arg(where, pumpFailureText(code))};
    return {RedisError::Code::Tls,
            QStringLiteral("TLS handshake with %1 failed: %2")
                .arg(where, code ? opensslError(code) : QString::fromLocal8Bit(strerror(errno)))};
}

RedisError TlsBridge::handshake(const ConnectionSettings &settings, const QString &where,
                                const QDeadlineTimer &deadline)
{
    m_ssl = SSL_new(m_ctx);
    if (!m_ssl)
        return {RedisError::Code::Tls,
                QStringLiteral("Cannot set up TLS: %1").arg(opensslError(ERR_get_error()))};
    SSL_set_app_data(m_ssl, this);
    SSL_set_mode(m_ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    const QString name = settings.tlsName();
    const QByteArray nameBytes = name.toUtf8();
    if (!isIpLiteral(name))
        SSL_set_tlsext_host_name(m_ssl, nameBytes.constData()); // SNI is for names only, never addresses
    if (settings.tls.verifyPeer) {
        if (isIpLiteral(name))
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(m_ssl), nameBytes.constData());
        else
            SSL_set1_host(m_ssl, nameBytes.constData());
    }
    SSL_set_fd(m_ssl, m_tcpFd);
    for (;;) {
        ERR_clear_error();
        const int r = SSL_connect(m_ssl);
        if (r == 1)
            break;
        const int e = SSL_get_error(m_ssl, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
            return handshakeFailure(e, settings, where);
        const int ready = waitTcp(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
        if (ready == -1)
            return {RedisError::Code::Interrupted,
                    QStringLiteral("Interrupted during the TLS handshake with %1").arg(where)};
        if (ready == 0)
            return {RedisError::Code::Timeout,
                    QStringLiteral(
                        "No TLS handshake from %1 within %2 ms: the server is paused or overloaded, or "
                        "does not speak TLS on this port (is it the plain port?)")
                        .arg(where)
                        .arg(settings.connectTimeoutMs)};
    }
    m_protocol = QStringLiteral("%1 %2").arg(QString::fromLatin1(SSL_get_version(m_ssl)),
                                             QString::fromLatin1(SSL_get_cipher_name(m_ssl)));
    return {};
}

RedisError TlsBridge::open(const QString &host, int port, const ConnectionSettings &settings,
                           const QString &where)
{
    if (m_wakeFd < 0)
        return {RedisError::Code::ConnectFailed,
                QStringLiteral("Cannot create an eventfd: %1").arg(strerror(errno))};
    const QDeadlineTimer deadline(settings.connectTimeoutMs);
    if (RedisError e = setUpContext(settings, where))
        return e;
    if (RedisError e = connectTcp(host, port, where, deadline))
        return e;
    if (RedisError e = handshake(settings, where, deadline))
        return e;
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return {RedisError::Code::ConnectFailed,
                QStringLiteral("Cannot create a socketpair: %1").arg(strerror(errno))};
    m_clientFd = pair[0];
    m_bridgeFd = pair[1];
    ::fcntl(m_bridgeFd, F_SETFL, ::fcntl(m_bridgeFd, F_GETFL) | O_NONBLOCK);
    qCDebug(lcRedis) << "TLS to" << where << m_protocol << "verified:" << settings.tls.verifyPeer;
    m_thread = std::thread([this] { pump(); });
    return {};
}

void TlsBridge::pump()
{
    // Two one-way buffers. A side is read only when its buffer is empty, so memory stays bounded and
    // back-pressure reaches the writer through the socket buffers.
    std::vector<char> toServer(kBufferSize), toClient(kBufferSize);
    size_t toServerOffset = 0, toServerLength = 0, toClientOffset = 0, toClientLength = 0;
    bool clientEof = false, serverEof = false;

    for (;;) {
        if (m_stop)
            break;
        bool progress = false;
        short tcpEvents = 0, clientEvents = 0;

        if (toServerLength == 0 && !clientEof) {
            const ssize_t n = ::read(m_bridgeFd, toServer.data(), toServer.size());
            if (n > 0) {
                toServerOffset = 0;
                toServerLength = size_t(n);
                progress = true;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                clientEof = true; // hiredis closed its end (connection closed or interrupted)
            } else {
                clientEvents |= POLLIN;
            }
        }
        if (clientEof)
            break;
        if (toServerLength > 0) {
            ERR_clear_error();
            const int n = SSL_write(m_ssl, toServer.data() + toServerOffset, int(toServerLength));
            if (n > 0) {
                toServerOffset += size_t(n);
                toServerLength -= size_t(n);
                progress = true;
            } else {
                const int e = SSL_get_error(m_ssl, n);
                if (e == SSL_ERROR_WANT_READ)
                    tcpEvents |= POLLIN;
                else if (e == SSL_ERROR_WANT_WRITE)
                    tcpEvents |= POLLOUT;
                else {
                    const int savedErrno = errno;
                    unsigned long code = ERR_peek_error();
                    if (code == 0) {
                        // A reset: the server may have sent an alert saying why before it closed (TLS 1.3
                        // rejects a client certificate only after the handshake). Read it if it is there.
                        char scratch[256];
                        if (SSL_read(m_ssl, scratch, sizeof(scratch)) <= 0)
                            code = ERR_peek_error();
                    }
                    setFailure(
                        code ? pumpFailureText(code)
                             : QStringLiteral("the connection was reset (%1)").arg(strerror(savedErrno)));
                    break;
                }
            }
        }
        if (toClientLength == 0 && !serverEof) {
            ERR_clear_error();
            const int n = SSL_read(m_ssl, toClient.data(), int(toClient.size()));
            if (n > 0) {
                toClientOffset = 0;
                toClientLength = size_t(n);
                progress = true;
            } else {
                const int e = SSL_get_error(m_ssl, n);
                const unsigned long code = ERR_peek_error();
                if (e == SSL_ERROR_WANT_READ) {
                    tcpEvents |= POLLIN;
                } else if (e == SSL_ERROR_WANT_WRITE) {
                    tcpEvents |= POLLOUT;
                } else if (e == SSL_ERROR_ZERO_RETURN
                           || ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING
                           || (e == SSL_ERROR_SYSCALL && code == 0)) {
                    serverEof = true; // the server closed (QUIT, CLIENT KILL, shutdown): hiredis sees EOF
                } else {
                    setFailure(pumpFailureText(code));
                    serverEof = true;
                }
            }
        }
        if (toClientLength > 0) {
            const ssize_t n
                = ::send(m_bridgeFd, toClient.data() + toClientOffset, toClientLength, MSG_NOSIGNAL);
            if (n > 0) {
                toClientOffset += size_t(n);
                toClientLength -= size_t(n);
                progress = true;
            } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                clientEvents |= POLLOUT;
            } else {
                break; // hiredis' end is gone
            }
        }
        if (serverEof && toClientLength == 0)
            break; // closing our end below gives hiredis end-of-file after the data it has not read yet
        if (progress)
            continue;
        pollfd fds[3] = {{m_tcpFd, tcpEvents, 0}, {m_bridgeFd, clientEvents, 0}, {m_wakeFd, POLLIN, 0}};
        const int n = ::poll(fds, 3, -1);
        if (n < 0 && errno != EINTR)
            break;
        if (fds[2].revents & POLLIN)
            break; // interrupt() or the destructor
    }
    if (!serverEof && !m_stop) {
        ERR_clear_error();
        SSL_shutdown(m_ssl); // close_notify, best effort: the server must not wait for it
    }
    ::shutdown(m_bridgeFd, SHUT_RDWR);
    ::shutdown(m_tcpFd, SHUT_RDWR);
}
