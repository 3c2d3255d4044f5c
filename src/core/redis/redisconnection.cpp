// RedisConnection: hiredis sync context with timeouts, auth, read-only guard, pipelining and reconnect.
#include "redisconnection.h"

#include "boundedreader.h"
#include "fiberscheduler.h"
#include "logging.h"
#include "readonlyguard.h"
#include "redisdialer.h"

#include <hiredis/hiredis.h>

#include <QDeadlineTimer>
#include <QVarLengthArray>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <vector>

namespace {

timeval toTimeval(int ms)
{
    timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

// Appends one command as RESP to `out` with one size check and plain copies. hiredis 0.14's own formatter
// parses a format string per argument and was a quarter of a lock cycle's client CPU; QByteArray::append
// per piece was most of a scan's formatting time.
void appendResp(const RedisCommand &args, QByteArray &out)
{
    qsizetype size = 16; // "*<count>\r\n"
    for (const QByteArray &a : args)
        size += a.size() + 24; // "$<length>\r\n" + the bytes + "\r\n"
    const qsizetype start = out.size();
    out.resize(start + size); // never shrinks the buffer's capacity; the new bytes are written below
    char *p = out.data() + start;
    const auto writeNumber = [&p](char prefix, qsizetype n) {
        char digits[20];
        int count = 0;
        do {
            digits[count++] = char('0' + n % 10);
            n /= 10;
        } while (n > 0);
        *p++ = prefix;
        while (count > 0)
            *p++ = digits[--count];
        *p++ = '\r';
        *p++ = '\n';
    };
    writeNumber('*', args.size());
    for (const QByteArray &a : args) {
        writeNumber('$', a.size());
        std::memcpy(p, a.constData(), size_t(a.size()));
        p += a.size();
        *p++ = '\r';
        *p++ = '\n';
    }
    out.resize(p - out.constData());
}

QString commandName(const RedisCommand &args)
{
    return args.isEmpty() ? QString() : QString::fromUtf8(args.first()).toUpper();
}

} // namespace

QString RedisConnection::hiredisVersion()
{
    return QStringLiteral("%1.%2.%3").arg(HIREDIS_MAJOR).arg(HIREDIS_MINOR).arg(HIREDIS_PATCH);
}

QString RedisConnection::tlsLibraryVersion()
{
    return RedisDialer::tlsLibraryVersion();
}

QString RedisConnection::tlsProtocol() const
{
    return m_context ? m_dialer->tlsProtocol() : QString();
}

RedisConnection::RedisConnection(const ConnectionSettings &settings)
    : m_settings(settings)
    , m_endpoint(settings.endpoint())
    , m_dialer(std::make_unique<RedisDialer>())
{ // hiredis writes with write(), not send(MSG_NOSIGNAL): a server that died mid-write would raise SIGPIPE
    // and kill the whole app. The failed write is reported as an error value instead.
    static const bool sigpipeIgnored = [] {
        ::signal(SIGPIPE, SIG_IGN);
        return true;
    }();
    Q_UNUSED(sigpipeIgnored);
}

RedisConnection::~RedisConnection()
{
    close();
}

RedisError RedisConnection::fail(const RedisError &error)
{
    m_lastError = error;
    if (error.breaksConnection())
        dropContext();
    return error;
}

void RedisConnection::dropContext()
{
    if (!m_context)
        return;
    {
        QMutexLocker lock(&m_fdMutex);
        m_fd = -1;
    }
    redisFree(m_context); // closes hiredis' end of a TLS bridge too: its pump then ends
    m_context = nullptr;
    m_pending = 0;
    m_unsent.resize(0); // commands for the connection that is gone
    m_dialer->dropTls();
}

void RedisConnection::close()
{
    dropContext();
    m_dialer->hangUp(); // also a bridge whose open() failed, which has no context to drop
}

RedisError RedisConnection::reconnect()
{
    close();
    return open();
}

void RedisConnection::interrupt()
{
    m_interrupted = true;
    QMutexLocker lock(&m_fdMutex);
    if (m_fd >= 0)
        ::shutdown(m_fd, SHUT_RDWR);
    m_dialer->interrupt();
}

RedisError RedisConnection::open()
{
    // A reconnect reuses a running tunnel: held here, close() does not stop its ssh.
    const std::shared_ptr<const void> previousTunnel = m_dialer->tunnelInUse();
    close();
    m_interrupted = false;
    m_clientId = -1;
    const QString problem = m_settings.validate();
    if (!problem.isEmpty())
        return fail({RedisError::Code::BadSettings, problem});
    m_staleMaster = false;

    redisContext *c = nullptr;
    const RedisError dialError = m_dialer->dial(&m_settings, &m_interrupted, &c);
    m_endpoint = m_settings.endpoint(); // through Sentinel, the master's
    if (dialError) {
        close();
        return fail(dialError);
    }
    m_context = c;
    BoundedReader::install(c->reader);
    {
        QMutexLocker lock(&m_fdMutex);
        m_fd = c->fd;
    }
    redisSetTimeout(c, toTimeval(m_settings.commandTimeoutMs));

    const RedisError handshakeError = handshake();
    if (handshakeError) {
        const RedisError diagnosed = m_dialer->withTunnelDiagnosis(handshakeError, m_settings);
        close();
        m_lastError = diagnosed;
        return diagnosed;
    }
    m_everOpened = true;
    m_lastError = {};
    qCDebug(lcRedis) << "connected to" << m_settings.describe() << "client id" << m_clientId;
    return {};
}

RedisError RedisConnection::handshake()
{
    const QString where = m_settings.endpoint();
    if (!m_settings.password.isEmpty()) {
        RedisCommand auth {"AUTH"};
        if (!m_settings.user.isEmpty())
            auth << m_settings.user.toUtf8();
        auth << m_settings.password.toUtf8();
        const RedisResult r = roundTrip(auth);
        if (r.error.breaksConnection())
            return r.error;
        if (!r.ok()) {
            const QString text = QString::fromUtf8(r.reply.bytes());
            if (r.error.code() == RedisError::Code::AuthFailed) {
                // Redis answers WRONGPASS for both an unknown user and a wrong password, on purpose.
                const QString who = m_settings.user.isEmpty()
                    ? QStringLiteral("the default user")
                    : QStringLiteral("user '%1'").arg(m_settings.user);
                return {RedisError::Code::AuthFailed,
                        QStringLiteral("Authentication failed at %1 for %2: the user name or password was "
                                       "rejected (Redis does not say which, or the user is disabled)")
                            .arg(where, who)};
            }
            if (text.contains(QLatin1String("without any password configured")))
                return {RedisError::Code::AuthFailed,
                        QStringLiteral("Authentication failed at %1: the password was rejected because the "
                                       "server has no password set (connect without one)")
                            .arg(where)};
            if (text.contains(QLatin1String("wrong number of arguments")))
                return {RedisError::Code::AuthFailed,
                        QStringLiteral("Authentication failed at %1: this server does not know ACL users "
                                       "(Redis before 6); connect with a password only")
                            .arg(where)};
            return {RedisError::Code::AuthFailed,
                    QStringLiteral("Authentication failed at %1: %2").arg(where, text)};
        }
    }
    if (m_settings.db != 0) {
        const RedisResult r = roundTrip({"SELECT", QByteArray::number(m_settings.db)});
        if (r.error.code() == RedisError::Code::NoAuth)
            return {RedisError::Code::NoAuth,
                    QStringLiteral("%1 requires a password (NOAUTH): give one to connect").arg(where)};
        if (!r.ok())
            return {r.error.breaksConnection() ? r.error.code() : RedisError::Code::BadSettings,
                    QStringLiteral("Cannot select database %1 at %2: %3")
                        .arg(m_settings.db)
                        .arg(where, r.error.message())};
    }
    // CLIENT ID doubles as the liveness check (it works for every ACL user that may connect).
    const RedisResult id = roundTrip({"CLIENT", "ID"});
    if (id.error.code() == RedisError::Code::NoAuth)
        return {RedisError::Code::NoAuth,
                QStringLiteral("%1 requires a password (NOAUTH): give one to connect").arg(where)};
    if (id.error.breaksConnection())
        return id.error;
    if (id.ok()) {
        m_clientId = id.reply.toInteger();
    } else if (id.error.code() != RedisError::Code::NoPermission) {
        // Not an ACL refusal (a server still loading, a proxy that does not know CLIENT): PING decides.
        if (!roundTrip({"PING"}).ok())
            return id.error;
    }
    // A NOPERM is an answer too: the server is there, and a user limited to +@read (no CLIENT, no PING) may
    // still look at keys. What else it may not run shows up later as "unknown", with the server's reason.
    if (m_settings.sentinel.enabled()) {
        // Sentinel's client guideline: check that what the sentinels named is a master (during a failover
        // they may still name the old one, now a replica).
        const RedisResult role = roundTrip({"ROLE"});
        if (role.error.breaksConnection())
            return role.error;
        if (role.ok() && role.reply.size() > 0 && role.reply.at(0).bytes() != "master")
            return {
                RedisError::Code::ReplicaReadOnly,
                QStringLiteral("Sentinel names %1 as master '%2', but it is a %3 (a failover is in "
                               "progress): try again in a moment")
                    .arg(where, m_settings.sentinel.masterName, QString::fromUtf8(role.reply.at(0).bytes()))};
    }
    if (!m_settings.clientName.isEmpty()) {
        // Naming is a courtesy to whoever runs CLIENT LIST; an ACL that forbids it is not an error.
        const RedisResult r = roundTrip({"CLIENT", "SETNAME", m_settings.clientName.toUtf8()});
        if (r.error.breaksConnection())
            return r.error;
    }
    return {};
}

RedisError RedisConnection::setCommandTimeout(int ms)
{
    if (ms <= 0)
        return {RedisError::Code::BadArgument, QStringLiteral("timeout must be positive")};
    m_settings.commandTimeoutMs = ms;
    if (m_context && redisSetTimeout(m_context, toTimeval(ms)) != REDIS_OK)
        return fail(takeContextError());
    return {};
}

RedisError RedisConnection::guard(const RedisCommand &args) const
{
    if (args.isEmpty())
        return {RedisError::Code::BadArgument, QStringLiteral("empty command")};
    QString reason;
    if (m_settings.readOnly && !ReadOnlyGuard::allows(args, &reason))
        return {RedisError::Code::ReadOnlyRefused, QStringLiteral("Refused: ") + reason};
    return {};
}

RedisError RedisConnection::ensureOpen()
{
    if (m_context && m_pending == 0 && m_autoReconnect
        && (m_staleMaster || m_dialer->masterMayHaveMoved()))
        return open(); // the master we knew was demoted or replaced: ask the sentinels again
    if (m_context)
        return {};
    if (m_autoReconnect && m_everOpened)
        return open();
    return {RedisError::Code::NotConnected,
            m_lastError ? QStringLiteral("Not connected to %1 (last error: %2)")
                              .arg(m_settings.endpoint(), m_lastError.message())
                        : QStringLiteral("Not connected to %1").arg(m_settings.endpoint())};
}

RedisError RedisConnection::takeContextError()
{
    const int savedErrno = errno;
    const QString where = m_settings.endpoint();
    if (m_interrupted)
        return {RedisError::Code::Interrupted, QStringLiteral("Interrupted while talking to %1").arg(where)};
    if (!m_context)
        return {RedisError::Code::NotConnected, QStringLiteral("Not connected to %1").arg(where)};
    const QString detail = QString::fromLocal8Bit(m_context->errstr);
    if (m_context->err == REDIS_ERR_EOF || m_context->err == REDIS_ERR_IO) {
        // A TLS bridge records a TLS failure (e.g. an alert) before hiredis sees its end close.
        const QString tlsFailure = m_dialer->tlsFailure();
        if (!tlsFailure.isEmpty())
            return {RedisError::Code::Tls,
                    QStringLiteral("TLS connection to %1 failed: %2").arg(where, tlsFailure)};
    }
    if (m_context->err == REDIS_ERR_OOM) {
        const QString refused = BoundedReader::refusal();
        if (!refused.isEmpty())
            return {RedisError::Code::Protocol,
                    QStringLiteral("Protocol error from %1: %2").arg(where, refused)};
    }
    switch (m_context->err) {
    case REDIS_ERR_EOF:
        return {RedisError::Code::ConnectionClosed,
                QStringLiteral("%1 closed the connection (server stopped, restarted or killed the client)")
                    .arg(where)};
    case REDIS_ERR_PROTOCOL:
        return {RedisError::Code::Protocol, QStringLiteral("Protocol error from %1: %2").arg(where, detail)};
    case REDIS_ERR_IO:
        if (savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || savedErrno == ETIMEDOUT
            || detail.contains(QLatin1String("temporarily unavailable"))
            || detail.contains(QLatin1String("timed out")))
            return {RedisError::Code::Timeout,
                    QStringLiteral("No reply from %1 within %2 ms (server paused, overloaded or unreachable)")
                        .arg(where)
                        .arg(m_settings.commandTimeoutMs)};
        if (savedErrno == ECONNRESET || savedErrno == EPIPE)
            return {RedisError::Code::ConnectionClosed,
                    QStringLiteral("%1 closed the connection (%2)").arg(where, detail)};
        return {RedisError::Code::Io, QStringLiteral("I/O error talking to %1: %2").arg(where, detail)};
    default:
        return {RedisError::Code::Io, QStringLiteral("Error talking to %1: %2").arg(where, detail)};
    }
}

RedisResult RedisConnection::resultFromRaw(void *raw)
{
    RedisResult result;
    result.reply = BoundedReader::take(raw);
    if (result.reply.isError()) {
        result.error = RedisError::fromServerReply(result.reply.bytes());
        // A write refused by a replica on a connection through Sentinel: the master was failed over.
        if (m_settings.sentinel.enabled() && result.error.code() == RedisError::Code::ReplicaReadOnly)
            m_staleMaster = true;
    }
    return result;
}

RedisResult RedisConnection::roundTrip(const RedisCommand &args)
{
    if (const RedisError e = appendChecked(args))
        return RedisResult::failure(e);
    return readReply();
}

RedisResult RedisConnection::command(const RedisCommand &args)
{
    if (const RedisError e = guard(args)) {
        m_lastError = e;
        return RedisResult::failure(e);
    }
    if (m_pending > 0)
        return RedisResult::failure(
            {RedisError::Code::BadArgument,
             QStringLiteral("%1 replies are still pending on this connection").arg(m_pending)});
    if (const RedisError e = ensureOpen())
        return RedisResult::failure(e);
    return roundTrip(args);
}

QList<RedisResult> RedisConnection::pipeline(const QList<RedisCommand> &commands)
{
    QList<RedisResult> results;
    results.reserve(commands.size());
    RedisError refused;
    // A scan page repeats a handful of command names thousands of times: each name that reads whatever
    // its arguments is checked once per pipeline (compared as given, so "get" and "GET" are checked apart).
    QVarLengthArray<QByteArray, 8> readingNames;
    for (const RedisCommand &c : commands) {
        if (!c.isEmpty() && m_settings.readOnly && readingNames.contains(c.first()))
            continue;
        if ((refused = guard(c)))
            break;
        if (m_settings.readOnly && readingNames.size() < 8 && ReadOnlyGuard::allowsAnyArguments(c.first()))
            readingNames.append(c.first());
    }
    if (!refused && m_pending > 0)
        refused
            = {RedisError::Code::BadArgument, QStringLiteral("replies are still pending on this connection")};
    if (!refused)
        refused = ensureOpen();
    if (!refused && !m_context)
        refused = {RedisError::Code::NotConnected, QStringLiteral("Not connected to %1").arg(m_endpoint)};
    if (refused) {
        m_lastError = refused;
        for (qsizetype i = 0; i < commands.size(); ++i)
            results.append(RedisResult::failure(refused));
        return results;
    }
    // All commands in one buffer, written in one go when the first reply is waited for (sendUnsent).
    for (const RedisCommand &c : commands)
        appendResp(c, m_unsent);
    if (!commands.isEmpty()) {
        m_pending += int(commands.size());
        m_commandsSent += quint64(commands.size());
        if (m_settings.tally.count)
            m_settings.tally.count->fetch_add(quint64(commands.size()), std::memory_order_relaxed);
        if (lcRedis().isDebugEnabled()) {
            for (const RedisCommand &c : commands)
                qCDebug(lcRedis) << "->" << commandName(c);
        }
    }
    while (results.size() < commands.size()) {
        RedisResult r = readReply();
        const bool broken = r.error.breaksConnection();
        results.append(std::move(r));
        if (broken) {
            const RedisError e = results.last().error;
            while (results.size() < commands.size())
                results.append(RedisResult::failure(e));
        }
    }
    return results;
}

RedisError RedisConnection::append(const RedisCommand &args)
{
    if (const RedisError e = guard(args))
        return e;
    return appendChecked(args);
}

RedisError RedisConnection::appendChecked(const RedisCommand &args)
{
    if (args.isEmpty())
        return {RedisError::Code::BadArgument, QStringLiteral("empty command")};
    if (!m_context)
        return fail({RedisError::Code::NotConnected,
                     QStringLiteral("Not connected to %1").arg(m_settings.endpoint())});
    appendResp(args, m_unsent); // written when a reply is waited for: appended commands leave in one write
    ++m_pending;
    ++m_commandsSent;
    if (m_settings.tally.count)
        m_settings.tally.count->fetch_add(1, std::memory_order_relaxed);
    qCDebug(lcRedis) << "->" << commandName(args);
    return {};
}

RedisResult RedisConnection::readReply()
{
    if (!m_context)
        return RedisResult::failure(fail({RedisError::Code::NotConnected,
                                          QStringLiteral("Not connected to %1").arg(m_settings.endpoint())}));
    if (FiberScheduler *fibers = FiberScheduler::current())
        return readReplyOnFiber(*fibers);
    void *raw = nullptr;
    if (const RedisError e = takeParsedOrFlush(&raw))
        return RedisResult::failure(e);
    if (!raw && (redisGetReply(m_context, &raw) != REDIS_OK || !raw)) {
        BoundedReader::discard(raw);
        return RedisResult::failure(fail(takeContextError()));
    }
    if (m_pending > 0)
        --m_pending;
    return resultFromRaw(raw);
}

RedisError RedisConnection::takeParsedOrFlush(void **raw)
{
    if (redisGetReplyFromReader(m_context, raw) != REDIS_OK)
        return fail(takeContextError());
    if (*raw)
        return {};
    // Flush anything appended but not yet written, so the server can answer it.
    sendUnsent();
    int done = 0;
    while (!*raw && !done) {
        if (redisBufferWrite(m_context, &done) != REDIS_OK)
            return fail(takeContextError());
    }
    return {};
}

void RedisConnection::sendUnsent()
{
    // Straight from our buffer to the socket: handing the bytes to hiredis first (redisAppendFormattedCommand)
    // copies them into a buffer it grows, then frees and re-makes after the write — about a tenth of a lock
    // cycle's client instructions. Whatever cannot go now (a full socket buffer, an error) is handed to
    // hiredis after all, whose write path then waits, retries or reports it exactly as before.
    if (m_unsent.isEmpty())
        return;
    const char *data = m_unsent.constData();
    qsizetype left = m_unsent.size();
    if (sdslen(m_context->obuf) == 0) { // nothing of hiredis' own goes first
        while (left > 0) {
            const ssize_t n = ::send(m_context->fd, data, size_t(left), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                data += n;
                left -= n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                break; // EAGAIN or an error: hiredis' write below meets it again and says what it is
            }
        }
    }
    if (left > 0)
        redisAppendFormattedCommand(m_context, data, size_t(left)); // only fails out of memory, as hiredis does
    m_unsent.resize(0);
}

RedisResult RedisConnection::readReplyOnFiber(FiberScheduler &fibers)
{
    // What redisGetReply does on a blocking socket, except that the wait for the reply parks this fiber
    // (the other fibers of the thread run meanwhile) and the read comes only once the socket is readable,
    // so it never blocks the thread. The command timeout bounds the wait as SO_RCVTIMEO does otherwise.
    void *raw = nullptr;
    if (const RedisError e = takeParsedOrFlush(&raw))
        return RedisResult::failure(e);
    std::optional<FiberScheduler::Clock::time_point> deadline;
    if (m_settings.commandTimeoutMs > 0)
        deadline = FiberScheduler::Clock::now() + std::chrono::milliseconds(m_settings.commandTimeoutMs);
    while (!raw) {
        if (!fibers.waitReadable(m_context->fd, deadline)) {
            // Described as the blocking read describes its SO_RCVTIMEO: a timeout, which drops the context.
            m_context->err = REDIS_ERR_IO;
            std::snprintf(m_context->errstr, sizeof m_context->errstr, "%s", std::strerror(EAGAIN));
            errno = EAGAIN;
            return RedisResult::failure(fail(takeContextError()));
        }
        if (redisBufferRead(m_context) != REDIS_OK || redisGetReplyFromReader(m_context, &raw) != REDIS_OK) {
            BoundedReader::discard(raw);
            return RedisResult::failure(fail(takeContextError()));
        }
    }
    if (m_pending > 0)
        --m_pending;
    return resultFromRaw(raw);
}

RedisResult RedisConnection::readReply(int timeoutMs)
{
    if (!m_context)
        return RedisResult::failure(fail({RedisError::Code::NotConnected,
                                          QStringLiteral("Not connected to %1").arg(m_settings.endpoint())}));
    void *raw = nullptr;
    if (const RedisError e = takeParsedOrFlush(&raw))
        return RedisResult::failure(e);
    QDeadlineTimer deadline(timeoutMs);
    FiberScheduler *fibers = FiberScheduler::current();
    const auto until = FiberScheduler::Clock::now() + std::chrono::milliseconds(std::max(0, timeoutMs));
    while (!raw) {
        if (fibers) { // park the fiber, not the thread
            if (!fibers->waitReadable(m_context->fd, until))
                return RedisResult::failure(
                    {RedisError::Code::Timeout, QStringLiteral("No message within %1 ms").arg(timeoutMs)});
            if (redisBufferRead(m_context) != REDIS_OK || redisGetReplyFromReader(m_context, &raw) != REDIS_OK)
                return RedisResult::failure(fail(takeContextError()));
            continue;
        }
        pollfd pfd {m_context->fd, POLLIN, 0};
        const int remaining = int(deadline.remainingTime());
        const int n = ::poll(&pfd, 1, remaining < 0 ? 0 : remaining);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return RedisResult::failure(
                {RedisError::Code::Timeout, QStringLiteral("No message within %1 ms").arg(timeoutMs)});
        if (m_interrupted)
            return RedisResult::failure(fail(takeContextError()));
        if (redisBufferRead(m_context) != REDIS_OK || redisGetReplyFromReader(m_context, &raw) != REDIS_OK)
            return RedisResult::failure(fail(takeContextError()));
    }
    if (m_pending > 0)
        --m_pending;
    return resultFromRaw(raw);
}
