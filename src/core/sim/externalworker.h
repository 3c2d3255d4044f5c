// One worker of a run that is a real lock library in a process of its own (docs/client-protocol.md): a
// thread of LockScope's drives the adapter — acquire, read, the section's work, write, release, or the
// story's steps — and records every operation with the times LockScope sent the request and read the reply.
// A reply that never comes is an unknown outcome, recorded as such. Faults hit the process itself: a pause is
// SIGSTOP, a crash SIGKILL, a restart a new process.
#pragma once

#include "externalclient.h"
#include "historyevent.h"
#include "runcontext.h"
#include "runworker.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

class ExternalWorker : public RunWorker
{
public:
    struct Endpoint
    {
        QString host;
        int port = 0;
    };
    // What the adapter said of itself in its hello.
    struct Announcement
    {
        QString library;
        QString version;
        QJsonObject supports;
        QList<qint64> pids; // every process it ran as (a restart adds one)
    };

    // `servers`: the addresses the adapter connects to (proxies in front of the run's servers).
    // `processLog`: the history log for what the adapter reports on its own (renewals, lost locks, notices).
    ExternalWorker(int index, const QString &name, int process, RunContext &run, ExternalClient::Launch launch,
                   QList<Endpoint> servers, int processLog);
    ~ExternalWorker() override; // ends the thread and the process

    int index() const { return m_index; }
    const QString &name() const { return m_name; }

    // Starts the adapter's process. prepare() then says hello (and starts it first if this was not called):
    // every worker's process is started before the first hello, so their runtimes load side by side.
    bool launch(QString *error);
    bool prepare(QString *error) override; // starts the adapter if needed and says hello
    void start() override;
    void post(const Scenario::Step &step) override;
    void finish() override;
    void join() override;
    bool isIdle() const override { return m_idle.load(); }
    void interruptConnections() override;

    // Faults, from the controller thread.
    bool pause();
    bool resume();
    // A pause's end: SIGCONT only to the process that pause stopped (processGeneration() then), still our
    // child and still stopped; false when there is nothing to resume (it was killed, or replaced).
    bool resume(quint64 generation);
    bool isStopped(quint64 generation) const;
    quint64 processGeneration() const;
    // Whether the adapter's current process still runs (a stopped one does); how it ended when not.
    bool isProcessRunning() { return m_client->isRunning(); }
    QString processExit() const { return m_client->exitDescription(); }
    void crash(); // SIGKILL: what the adapter held stays in Redis
    void restart(); // a new process (the worker's thread starts it and says hello)
    bool isCrashed() const { return m_crashed.load(); }
    bool isPaused() const;
    // Closes the adapter's input and waits for it to go (end of the run).
    void close();

    Announcement announcement() const;
    qint64 pid() const { return m_client ? m_client->pid() : -1; }
    QString stderrTail() const { return m_client ? m_client->stderrTail() : QString(); }

private:
    void run();
    void runWorkload();
    void runStory();
    void runStep(const Scenario::Step &step);
    bool hello(QString *error);
    // Blocks while the process is crashed and no restart came; false when the run is over.
    bool aliveOrRestarted();
    bool cycle(int lock, bool *completed);
    bool acquire(int lock);
    void release(int lock);
    bool readCounter(int lock);
    bool writeCounter(int lock);
    void enter(int lock, qint64 atUs);
    void exit(int lock, qint64 atUs);
    bool waitUs(qint64 us); // LockScope's side of the section's work: false when the run ends
    qint64 criticalSectionUs();
    ExternalClient::Reply call(QJsonObject request, qint64 timeoutUs);
    // Tells the run's PersistentErrorTracker how `operation` went; a refusal the server keeps giving (OOM,
    // NOPERM, an unknown command in the library's error text) makes the worker back off, and ends the run
    // once it has lasted. False when the run is over.
    bool judge(PersistentErrorTracker::Operation operation, const ExternalClient::Reply &r);
    void onEvent(const ExternalClient::Event &event);
    void onNotice(ExternalClient::Notice notice, const QString &text);
    QString lockName(int lock) const;

    quint32 invoke(HistoryEvent::Kind kind, int lock, qint64 value, qint64 atUs);
    void complete(quint32 op, HistoryEvent::Kind kind, HistoryEvent::Phase phase, int lock, qint64 value,
                  qint64 atUs, quint8 outcome = 0, const QByteArray &detail = QByteArray(), qint64 token = 0,
                  qint64 effectUs = 0);
    void single(HistoryEvent::Kind kind, int lock, qint64 value, qint64 atUs, const QByteArray &detail = {});
    // Events the reader thread records in the process's log (the only writer there).
    void recordFromAdapter(HistoryEvent e, const QByteArray &detail);

    const int m_index;
    const QString m_name;
    const int m_process;
    RunContext &m_run;
    const QList<Endpoint> m_servers;
    const int m_processLog;
    std::unique_ptr<ExternalClient> m_client;
    std::thread m_thread;

    mutable std::mutex m_mutex; // guards the fields below
    std::condition_variable m_wake;
    std::deque<Scenario::Step> m_steps;
    bool m_finished = false;
    bool m_restartWanted = false;
    Announcement m_announcement;

    std::atomic_bool m_idle = true;
    std::atomic_bool m_crashed = false;
    std::atomic_bool m_interrupted = false;
    bool m_launched = false; // launch() started the process (prepare() then only says hello)
    bool m_autoRenew = false; // the scenario asks for the library's watchdog
    bool m_refused = false; // the last acquire was refused in time (not an error): no back-off before the next
    bool m_leaseJudged = true;
    bool m_leaseIgnored = false; // the adapter's locks never expire (its hello: lease false) // the checker may judge the lease (not: auto-renewal without renewal events)
    QList<bool> m_inside;
    QList<bool> m_held;
    QList<qint64> m_lastRead; // -1: nothing read in this section
    QList<qint64> m_leaseMs; // the lease each current hold has (what the adapter says it set)
    quint32 m_nextOp = 0;
    std::atomic<quint32> m_nextAdapterOp = 0;
    std::mt19937_64 m_random;
};
