// Many logical workers on one OS thread: each runs as a fiber (a small stack of its own) and hands the thread
// back whenever it would block — a reply it waits for, a sleep, a FiberCondition — so one epoll loop carries
// hundreds of workers where the thread engine needs a thread each (the simulator's event engine).
//
// Code that can run on either kind of thread asks current(): non-null inside a fiber, and then waits through
// the scheduler instead of blocking the thread (RedisConnection::readReply, FiberCondition, sleepFor). A fiber
// that blocks the thread anyway (a plain mutex held long, a blocking connect) stalls the other fibers of its
// scheduler for that long but breaks nothing.
//
//   FiberScheduler loop(QStringLiteral("events 1"));
//   loop.spawn([&] { RedisConnection c(settings); c.open(); c.command({"PING"}); }); // waits without blocking
//   loop.waitUntilEmpty(); // from any thread
//
// Thread safety: spawn(), unpark(), fiberCount() and waitUntilEmpty() from any thread; the rest only from a
// fiber of this scheduler.
#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <vector>

class FiberScheduler
{
public:
    using Clock = std::chrono::steady_clock;
    struct Fiber; // one fiber: its stack, its saved registers, its park state
    using Handle = std::shared_ptr<Fiber>;
    enum class Wake { Unparked, Timeout, Readable };

    // Starts the loop's thread (named `name` for debuggers and sanitizer reports).
    explicit FiberScheduler(const QString &name, std::size_t stackBytes = defaultStackBytes());
    // Waits until every fiber has returned, then stops the thread. Fibers must end on their own: their
    // owner tells them to (a stop flag, interrupted connections) before destroying the scheduler.
    ~FiberScheduler();
    FiberScheduler(const FiberScheduler &) = delete;
    FiberScheduler &operator=(const FiberScheduler &) = delete;

    // Stack per fiber: 256 KiB, 1 MiB under a sanitizer (their frames are larger). Only the pages a fiber
    // touches take memory.
    static std::size_t defaultStackBytes();

    // Runs `body` as a new fiber on this scheduler's thread, after the fibers already waiting to run.
    void spawn(std::function<void()> body);
    // Fibers spawned and not yet returned.
    int fiberCount() const { return m_live.load(); }
    // Blocks the calling thread (never a fiber of this scheduler) until no fiber is left.
    void waitUntilEmpty();

    // The scheduler of the fiber running on this thread, or nullptr on an ordinary thread.
    static FiberScheduler *current();
    // The fiber running on this thread (empty on an ordinary thread): what a FiberCondition keeps to wake it.
    static Handle self();

    // From a fiber: gives the thread up until unpark(self()), `deadline`, or (waitReadable) the fd being
    // readable. A wake-up that came before park() is kept, so one between "register" and "park" is not lost;
    // such a kept wake-up can make a later park() return Unparked early, so callers re-check what they wait
    // for.
    Wake park(std::optional<Clock::time_point> deadline = std::nullopt);
    // From any thread: wakes `fiber` (if parked, else its next park() returns at once).
    static void unpark(const Handle &fiber);
    // From a fiber: true when `fd` can be read (data, end of file or an error), false when `deadline` came
    // first. Never returns true without the fd being ready, so a blocking read after it does not block.
    bool waitReadable(int fd, std::optional<Clock::time_point> deadline);
    // Sleeps `us` microseconds: the fiber's when on a fiber, else the thread's.
    static void sleepFor(std::chrono::microseconds us);
    // Lets the calling thread's timed waits end on time. Linux lets an ordinary thread's timers fire up to
    // 50 µs late (the timer slack) so that wake-ups can be batched; a simulated 1 ms critical section then
    // lasted about 1.07 ms. The loops call it for themselves; the thread engine's workers call it too.
    static void usePreciseTimers();

private:
    struct Timer
    {
        Clock::time_point at;
        quint64 parkSeq;
        Handle fiber;
        bool operator>(const Timer &other) const { return at > other.at; }
    };

    void loop();
    void runReady();
    void takeRemote();
    void waitForEvents();
    void expireTimers();
    void makeReady(const Handle &fiber, Wake why);
    void switchTo(const Handle &fiber);
    void switchToLoop(bool finished);
    void armReadable(int fd);
    static void entry();

    const QString m_name;
    const std::size_t m_stackBytes;
    int m_epoll = -1;
    int m_wakeFd = -1; // eventfd: remote spawns and unparks
    std::atomic_bool m_stopping = false;
    std::atomic_int m_live = 0;

    // Handed in from other threads.
    std::mutex m_remoteMutex;
    std::vector<Handle> m_remoteSpawns;
    std::vector<Handle> m_remoteWakes;
    std::condition_variable m_empty; // m_live reached 0 (waitUntilEmpty), under m_remoteMutex

    // The loop's own (its thread only).
    std::deque<Handle> m_ready;
    std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> m_timers;
    std::unordered_map<int, Handle> m_fdWaiters;
    Handle m_current;
    struct LoopContext;
    std::unique_ptr<LoopContext> m_loopContext;

    std::thread m_thread;
};
