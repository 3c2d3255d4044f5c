// One adapter process of the client protocol (docs/client-protocol.md): starts it, writes one request at a
// time, stamps requests and replies on the run's clock, and waits for each reply until a deadline — when
// none comes, or the process dies first, the outcome is unknown. Pause and crash are signals to the process.
#pragma once

#include "redis/childprocess.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

class ExternalClient
{
public:
    struct Launch
    {
        QStringList argv; // argv[0] is looked up on PATH when it has no slash
        QStringList environment; // NAME=VALUE, on top of LockScope's own
        QString workingDirectory;
        QString logFile; // the adapter's standard error
    };

    struct Reply
    {
        enum class Outcome { Ok, Failed, Unknown };
        Outcome outcome = Outcome::Unknown;
        QJsonObject body; // the reply line as the adapter sent it (empty when unknown)
        // Failed: the adapter's reason ("timeout", "not-held", "error", "unsupported"); unknown: why.
        QString reason;
        QString error; // the adapter's own words
        qint64 sentUs = 0; // run clock: when the request was written
        qint64 receivedUs = 0; // run clock: when the reply was read (unknown: when LockScope gave up)
        bool ok() const { return outcome == Outcome::Ok; }
        bool unknown() const { return outcome == Outcome::Unknown; }
        // "ok", "timeout", "unknown: no reply within 30 s" — for logs and the event detail.
        QString describe() const;
    };

    struct Event
    {
        QJsonObject body;
        qint64 receivedUs = 0;
    };

    using Clock = std::function<qint64()>; // the run clock, µs
    using EventHandler = std::function<void(const Event &)>; // called on the reader thread
    // A late reply is no failure (its outcome was already called unknown); the other notices are lines
    // that break the protocol.
    enum class Notice { LateReply, NotProtocol };
    using NoticeHandler = std::function<void(Notice, const QString &)>; // called on the reader thread

    ExternalClient(Launch launch, Clock clock);
    ~ExternalClient(); // kills the process if it still runs
    ExternalClient(const ExternalClient &) = delete;
    ExternalClient &operator=(const ExternalClient &) = delete;

    // Before start(): events the adapter writes on its own, and lines that are not the awaited reply (a late
    // reply to a request whose outcome was already called unknown, a line that is not the protocol's).
    void setEventHandler(EventHandler handler) { m_onEvent = std::move(handler); }
    void setNoticeHandler(NoticeHandler handler) { m_onNotice = std::move(handler); }

    // Starts the process (again, after a crash). False with `error` when it cannot be started.
    bool start(QString *error);
    // Writes `request` with the next id and waits for its reply until `timeoutUs` after writing it.
    // One caller at a time (the worker's thread).
    Reply call(QJsonObject request, qint64 timeoutUs);

    // start(), pause(), resume(), kill() and close() come from one controlling thread (the run's controller).
    bool pause(); // SIGSTOP to the adapter's process group
    bool resume(); // SIGCONT, only while pause() holds the current process stopped
    // The same, and only if the current process is still the one of that start() (generation()): a pause's
    // end must not wake a process that replaced the one it stopped.
    bool resume(quint64 generation);
    bool isPaused() const;
    // True while the process of that start() is our child, alive and stopped by pause().
    bool isStopped(quint64 generation);
    // Which start() the current process is of (0: none yet).
    quint64 generation() const;
    void kill(); // SIGKILL: a call in flight returns unknown
    bool isRunning();
    qint64 pid() const;
    // Closes the adapter's standard input (it exits, as the protocol says), waits up to `graceMs`, then
    // kills it.
    void close(int graceMs);
    // Every call in flight or to come returns unknown at once (the run is over).
    void interrupt();
    QString exitDescription() const;
    // The end of what the adapter wrote on standard error, for error messages.
    QString stderrTail(int maxBytes = 1500) const;
    const Launch &launch() const { return m_launch; }

private:
    void readLoop(int fd, int wakeFd, quint64 generation);
    void handleLine(const QByteArray &line, quint64 generation);
    void stopReader();

    const Launch m_launch;
    const Clock m_clock;
    EventHandler m_onEvent;
    NoticeHandler m_onNotice;

    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_wake;
    ChildProcess m_process;
    qint64 m_pid = -1;
    int m_toChild = -1;
    int m_fromChild = -1;
    int m_wakePipe[2] = {-1, -1}; // tells the reader to stop
    std::thread m_reader;
    quint64 m_generation = 0; // one per start(): a dead process's reader cannot touch its successor's calls
    bool m_readerDone = true; // the process closed its output (died)
    qint64 m_nextId = 0;
    qint64 m_awaitedId = -1;
    std::optional<Reply> m_reply;
    bool m_interrupted = false;
    QString m_exit;
};
