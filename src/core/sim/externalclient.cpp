// ExternalClient: the adapter's standard input and output as pipes, a reader thread that stamps each line
// as it arrives, and one awaited reply at a time.
#include "externalclient.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace {

QString seconds(qint64 us)
{
    return QString::number(double(us) / 1e6, 'g', 3) + QStringLiteral(" s");
}

// Writes all of `data` to a non-blocking pipe before `deadline`; false when it could not (errno set).
bool writeAll(int fd, const QByteArray &data, std::chrono::steady_clock::time_point deadline)
{
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
        if (n > 0) {
            done += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return false;
        // The pipe is full (the adapter is paused, or slow to read): wait for room until the deadline.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return false;
        }
        pollfd p {fd, POLLOUT, 0};
        ::poll(&p, 1, int(std::min<qint64>(left, 1000)));
    }
    return true;
}

} // namespace

QString ExternalClient::Reply::describe() const
{
    switch (outcome) {
    case Outcome::Ok:
        return QStringLiteral("ok");
    case Outcome::Failed:
        return error.isEmpty() ? reason : reason + QStringLiteral(": ") + error;
    case Outcome::Unknown:
        return QStringLiteral("unknown: ") + reason;
    }
    return QString();
}

ExternalClient::ExternalClient(Launch launch, Clock clock)
    : m_launch(std::move(launch))
    , m_clock(std::move(clock))
{
}

ExternalClient::~ExternalClient()
{
    kill();
}

bool ExternalClient::start(QString *error)
{
    if (m_launch.argv.isEmpty()) {
        *error = QStringLiteral("the client's command is empty");
        return false;
    }
    // A dying adapter must not kill LockScope: writes to its closed pipe fail with EPIPE instead.
    ::signal(SIGPIPE, SIG_IGN);
    QString program = m_launch.argv.first();
    if (!program.contains(u'/')) {
        const QString found = QStandardPaths::findExecutable(program);
        if (found.isEmpty()) {
            *error = QStringLiteral("cannot start the client: %1 is not on PATH").arg(program);
            return false;
        }
        program = found;
    } else if (!QFileInfo(program).isExecutable()) {
        *error = QStringLiteral("cannot start the client: %1 is not an executable file").arg(program);
        return false;
    }
    QDir().mkpath(QFileInfo(m_launch.logFile).absolutePath());
    stopReader();
    std::unique_lock lock(m_mutex);
    if (m_process.isRunning())
        m_process.kill();
    ChildProcess::Pipes pipes;
    if (!m_process.startPiped(program, m_launch.argv.mid(1), m_launch.workingDirectory, m_launch.logFile,
                              m_launch.environment, &pipes)) {
        *error = m_process.errorString();
        return false;
    }
    if (::pipe2(m_wakePipe, O_CLOEXEC) != 0) {
        *error = QStringLiteral("cannot make a pipe: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        ::close(pipes.toChild);
        ::close(pipes.fromChild);
        m_process.kill();
        return false;
    }
    ::fcntl(pipes.toChild, F_SETFL, ::fcntl(pipes.toChild, F_GETFL) | O_NONBLOCK);
    m_toChild = pipes.toChild;
    m_fromChild = pipes.fromChild;
    m_pid = m_process.pid();
    m_readerDone = false;
    m_interrupted = false;
    m_exit.clear();
    const quint64 generation = ++m_generation;
    const int from = m_fromChild, wake = m_wakePipe[0];
    m_reader = std::thread([this, from, wake, generation] { readLoop(from, wake, generation); });
    return true;
}

void ExternalClient::readLoop(int fd, int wakeFd, quint64 generation)
{
    QByteArray pending;
    char buffer[16384];
    for (;;) {
        pollfd p[2] = {{fd, POLLIN, 0}, {wakeFd, POLLIN, 0}};
        if (::poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break; // stopReader(): the client goes away
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // the adapter closed its output: it exited or died
        pending.append(buffer, n);
        qsizetype newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QByteArray line = pending.left(newline);
            pending.remove(0, newline + 1);
            if (!line.trimmed().isEmpty())
                handleLine(line, generation);
        }
        // A line longer than any reply could be is not the protocol's: say so and drop it.
        if (pending.size() > (1 << 20)) {
            if (m_onNotice)
                m_onNotice(Notice::NotProtocol,
                           QStringLiteral("the adapter wrote over 1 MiB without a line end; dropped"));
            pending.clear();
        }
    }
    ::close(fd);
    {
        std::lock_guard lock(m_mutex);
        if (generation == m_generation)
            m_readerDone = true;
    }
    m_wake.notify_all();
}

void ExternalClient::handleLine(const QByteArray &line, quint64 generation)
{
    const qint64 at = m_clock();
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
    if (!doc.isObject()) {
        if (m_onNotice)
            m_onNotice(Notice::NotProtocol,
                       QStringLiteral("not a protocol line (%1): %2")
                           .arg(parseError.errorString(), QString::fromUtf8(line.left(300))));
        return;
    }
    const QJsonObject body = doc.object();
    if (body.contains(QLatin1String("event"))) {
        if (m_onEvent)
            m_onEvent(Event {body, at});
        return;
    }
    const qint64 id = body.value(QLatin1String("id")).toInteger(-1);
    {
        std::lock_guard lock(m_mutex);
        if (generation == m_generation && id >= 0 && id == m_awaitedId && !m_reply) {
            Reply r;
            r.body = body;
            r.receivedUs = at;
            const bool ok = body.value(QLatin1String("ok")).toBool(false);
            r.outcome = ok ? Reply::Outcome::Ok : Reply::Outcome::Failed;
            if (!ok) {
                r.reason = body.value(QLatin1String("reason")).toString(QStringLiteral("error"));
                r.error = body.value(QLatin1String("error")).toString();
            }
            m_reply = r;
            m_wake.notify_all();
            return;
        }
    }
    if (m_onNotice) {
        m_onNotice(id >= 0 ? Notice::LateReply : Notice::NotProtocol,
                   id >= 0 ? QStringLiteral("a late reply to request %1, whose outcome stays unknown: %2")
                                 .arg(id)
                                 .arg(QString::fromUtf8(line.left(300)))
                           : QStringLiteral("a line with neither id nor event: %1")
                                 .arg(QString::fromUtf8(line.left(300))));
    }
}

ExternalClient::Reply ExternalClient::call(QJsonObject request, qint64 timeoutUs)
{
    Reply r;
    std::unique_lock lock(m_mutex);
    r.sentUs = m_clock();
    if (m_interrupted) {
        r.receivedUs = r.sentUs;
        r.reason = QStringLiteral("the run ended before it was sent");
        r.outcome = Reply::Outcome::Failed; // never sent: surely did not happen
        return r;
    }
    if (m_readerDone || m_toChild < 0) {
        r.receivedUs = r.sentUs;
        r.outcome = Reply::Outcome::Failed;
        r.reason = QStringLiteral("not-running");
        r.error = QStringLiteral("the adapter is not running (%1)")
                      .arg(m_exit.isEmpty() ? QStringLiteral("it ended") : m_exit);
        return r;
    }
    const qint64 id = ++m_nextId;
    request.insert(QStringLiteral("id"), id);
    m_awaitedId = id;
    m_reply.reset();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeoutUs);
    const QByteArray line = QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n';
    if (!writeAll(m_toChild, line, deadline)) {
        const int error = errno;
        r.receivedUs = m_clock();
        // A request cut half-way may still have been read whole by nobody: the adapter cannot act on a
        // line without its end, so an unwritten request surely did not happen.
        r.outcome = Reply::Outcome::Failed;
        r.reason = QStringLiteral("not-running");
        r.error = QStringLiteral("cannot write to the adapter: %1").arg(QString::fromLocal8Bit(strerror(error)));
        m_awaitedId = -1;
        return r;
    }
    m_wake.wait_until(lock, deadline, [this] { return m_reply || m_readerDone || m_interrupted; });
    m_awaitedId = -1;
    if (m_reply) {
        const qint64 sent = r.sentUs;
        r = *m_reply;
        r.sentUs = sent;
        m_reply.reset();
        return r;
    }
    r.receivedUs = m_clock();
    r.outcome = Reply::Outcome::Unknown;
    if (m_interrupted)
        r.reason = QStringLiteral("the run ended before the reply came");
    else if (m_readerDone)
        r.reason = QStringLiteral("the adapter died before replying (%1)")
                       .arg(m_exit.isEmpty() ? QStringLiteral("its output closed") : m_exit);
    else
        r.reason = QStringLiteral("no reply within %1").arg(seconds(timeoutUs));
    return r;
}

bool ExternalClient::pause()
{
    std::lock_guard lock(m_mutex);
    return m_process.pause();
}

bool ExternalClient::resume()
{
    std::lock_guard lock(m_mutex);
    return m_process.resume();
}

bool ExternalClient::resume(quint64 generation)
{
    std::lock_guard lock(m_mutex);
    return m_generation == generation && m_process.resume();
}

bool ExternalClient::isStopped(quint64 generation)
{
    std::lock_guard lock(m_mutex);
    // isRunning() reaps a child that died: one that is gone is not stopped, whatever pause() did.
    return m_generation == generation && m_process.isPaused() && m_process.isRunning();
}

quint64 ExternalClient::generation() const
{
    std::lock_guard lock(m_mutex);
    return m_generation;
}

bool ExternalClient::isPaused() const
{
    std::lock_guard lock(m_mutex);
    return m_process.isPaused();
}

void ExternalClient::kill()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_process.pid() > 0) {
            m_process.kill();
            m_exit = QStringLiteral("killed");
        }
        if (m_toChild >= 0) {
            ::close(m_toChild);
            m_toChild = -1;
        }
    }
    stopReader();
}

bool ExternalClient::isRunning()
{
    std::lock_guard lock(m_mutex);
    const bool running = m_process.isRunning();
    if (!running && m_exit.isEmpty() && !m_process.exitDescription().isEmpty())
        m_exit = m_process.exitDescription();
    return running;
}

qint64 ExternalClient::pid() const
{
    std::lock_guard lock(m_mutex);
    return m_pid;
}

void ExternalClient::close(int graceMs)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_process.isPaused())
            m_process.resume(); // a stopped adapter would never see its input close
        if (m_toChild >= 0) {
            ::close(m_toChild);
            m_toChild = -1;
        }
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(graceMs);
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait_until(lock, deadline, [this] { return m_readerDone; });
    }
    bool ended = false;
    {
        std::lock_guard lock(m_mutex);
        const int left = int(std::max<qint64>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                     deadline - std::chrono::steady_clock::now())
                                                     .count()));
        ended = m_process.pid() <= 0 || m_process.waitForExit(left);
        if (ended && m_exit.isEmpty())
            m_exit = m_process.exitDescription();
    }
    if (!ended)
        kill();
    stopReader();
}

void ExternalClient::interrupt()
{
    {
        std::lock_guard lock(m_mutex);
        m_interrupted = true;
    }
    m_wake.notify_all();
}

QString ExternalClient::exitDescription() const
{
    std::lock_guard lock(m_mutex);
    return m_exit;
}

QString ExternalClient::stderrTail(int maxBytes) const
{
    QFile f(m_launch.logFile);
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    if (f.size() > maxBytes)
        f.seek(f.size() - maxBytes);
    return QString::fromUtf8(f.readAll()).trimmed();
}

void ExternalClient::stopReader()
{
    int wake = -1;
    {
        std::lock_guard lock(m_mutex);
        wake = m_wakePipe[1];
    }
    if (wake >= 0) {
        const char c = 'x';
        [[maybe_unused]] const ssize_t n = ::write(wake, &c, 1);
    }
    if (m_reader.joinable())
        m_reader.join();
    std::lock_guard lock(m_mutex);
    for (int &fd : m_wakePipe) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
    m_fromChild = -1;
    m_readerDone = true;
    m_wake.notify_all();
}
