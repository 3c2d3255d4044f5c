// Reads a story's keys on its own thread and connections whenever asked (before each narrated step, at the
// end), so that the reading neither waits on a paused server nor delays the story: the run goes on at Redis'
// own pace, and the same whether anyone steps through it afterwards or not.
#pragma once

#include "redis/connectionsettings.h"
#include "storysnapshot.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

class RunClock;

class StorySnapshotter
{
public:
    // `serverAt(i)` says where logical server i is now (it may move on a failover); `lockKeys` are read on
    // every server (Redlock's N masters each hold the lock), `firstServerKeys` (the counters) on server 0.
    // `libraryKeys`: a SCAN MATCH pattern for the keys an external library names its own way ("mutex:" +
    // the lock's name): those found are read too (at most kMaxLibraryKeys per server). Empty: none.
    StorySnapshotter(int serverCount, std::function<ConnectionSettings(int)> serverAt,
                     QList<QByteArray> lockKeys, QList<QByteArray> firstServerKeys, const RunClock &clock,
                     QByteArray libraryKeys = {});
    ~StorySnapshotter(); // finishes the reading under way, drops the queued ones, stops
    StorySnapshotter(const StorySnapshotter &) = delete;
    StorySnapshotter &operator=(const StorySnapshotter &) = delete;

    // Reads now and waits for the reading, at most `waitMs`: a step must not go ahead while its "before"
    // is being read, nor wait long on a slow or paused server. A reading that outlasts the wait is marked
    // late (StorySnapshot::late). Returns whether it was done in time.
    bool readBefore(int stepIndex, int waitMs);
    // Asks for a reading now (returns at once).
    void request(int stepIndex);
    // Waits until every reading asked for is done (or `timeoutMs` passed); true when all are.
    bool waitIdle(int timeoutMs);
    // The readings done so far, in the order asked. Thread-safe.
    QList<StorySnapshot> snapshots() const;

    // Longest wait for one reply: a paused server must not hold the readings for long.
    static constexpr int kReadTimeoutMs = 400;
    // Elements shown per value (members of a hash, sorted set, list or set).
    static constexpr int kMaxElements = 12;
    static constexpr int kMaxLibraryKeys = 8;

private:
    struct Pending
    {
        int id;
        int stepIndex;
        qint64 requestedUs;
    };
    int enqueue(int stepIndex); // under m_mutex
    void loop();
    StorySnapshot::Server read(int server);

    const int m_serverCount;
    const std::function<ConnectionSettings(int)> m_serverAt;
    const QList<QByteArray> m_lockKeys;
    const QList<QByteArray> m_firstServerKeys;
    const QByteArray m_libraryKeys;
    const RunClock &m_clock;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<Pending> m_pending;
    bool m_busy = false;
    bool m_stop = false;
    int m_nextId = 0;
    int m_doneUpTo = -1; // readings are done in order: every id up to this one is done
    QList<int> m_late; // ids whose requester stopped waiting
    QList<StorySnapshot> m_done;
    std::thread m_thread; // last: starts once everything above exists
};
