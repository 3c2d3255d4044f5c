// Errors a run cannot wait out: a server that keeps refusing the run's commands the same way — a command
// renamed away or not allowed to the user, out of memory under noeviction, a read-only replica, WRONGTYPE on
// the run's own keys — as opposed to the transient failures the simulator's own faults cause (timeouts,
// connections refused or reset while a server restarts, LOADING, BUSY, TRYAGAIN, MASTERDOWN, CLUSTERDOWN),
// which the workers must keep surviving. Workers report every failed operation here: on a persistent error
// they back off (exponentially, capped) instead of retrying at full speed, and once the same error has
// lasted, the run gives up and says which command got which answer (issue 19, item 7).
#pragma once

#include "locks/lockresult.h"
#include "redis/rediserror.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

class PersistentErrorTracker
{
public:
    enum class Kind {
        None, // no error, or one that is no failure of the server's (the run interrupting itself)
        Transient, // worth trying again as before
        Persistent, // the same request will get the same answer
    };
    // What a worker was doing: a success of the same operation shows the run still gets through.
    enum class Operation { Acquire, Release, Read, Write };

    struct Policy
    {
        qint64 windowUs = 1000000; // the run gives up once the same error has lasted this long...
        int minFailures = 2; // ...over at least this many failures (a release may fail once a lease),
        int maxFailures = 100; // or after this many, however fast they came
        qint64 firstBackoffUs = 10000; // a worker's first wait after a persistent error, doubled each time
        qint64 maxBackoffUs = 250000;
        // Through Sentinel a demoted master answers READONLY until the client has found the new one.
        bool readOnlyIsTransient = false;
    };

    // What made the run give up.
    struct Failure
    {
        Operation operation = Operation::Acquire;
        QString command; // "EVALSHA redisson_lock"; empty when the refusal came before any command was sent
        QString error; // the server's words, as it sent them
        qint64 failures = 0;
        qint64 firstUs = 0; // run time of the first and the latest failure
        qint64 lastUs = 0;
        // One line: "EVALSHA redisson_lock (acquire) refused 31 times in 1.02 s: ERR unknown command …".
        QString describe() const;
    };

    static QString operationName(Operation operation);

    PersistentErrorTracker() = default;
    explicit PersistentErrorTracker(const Policy &policy);
    PersistentErrorTracker(const PersistentErrorTracker &) = delete;
    PersistentErrorTracker &operator=(const PersistentErrorTracker &) = delete;

    // Before the workers start.
    void setPolicy(const Policy &policy) { m_policy = policy; }
    const Policy &policy() const { return m_policy; }

    Kind classify(const RedisError &error) const;
    // Redlock: the vote whose persistent error kept a round from its quorum — more servers answered it than
    // the quorum can spare — or nullptr.
    const ServerVote *blockingVote(const QList<ServerVote> &votes, int quorum) const;

    // Thread-safe. `worker` failed `operation` at run time `nowUs` with `error`, answered to `command`.
    // Returns how long that worker should wait before its next attempt: 0 unless the error is persistent.
    qint64 failed(int worker, Operation operation, qint64 nowUs, const QByteArray &command,
                  const RedisError &error);
    // Thread-safe, and one atomic read while nothing fails: `operation` went through (the server did what
    // was asked, or answered as a working server does), which ends that operation's failures.
    void succeeded(Operation operation);

    bool hasGivenUp() const { return m_gaveUp.load(); }
    std::optional<Failure> failure() const;

private:
    // Failures of one operation with one error, since that operation last went through.
    struct Streak
    {
        Operation operation;
        QByteArray signature; // command, code and the error's first word: the same refusal, whatever keys
        Failure failure;
        QHash<int, int> perWorker; // failures in a row of each worker: its back-off
    };

    Policy m_policy;
    mutable std::mutex m_mutex;
    std::vector<Streak> m_streaks; // guarded by m_mutex
    std::optional<Failure> m_failure; // guarded by m_mutex
    std::atomic_int m_open = 0; // m_streaks.size(), read without the mutex
    std::atomic_bool m_gaveUp = false;
};
