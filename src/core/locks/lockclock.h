// The clocks a lock reads: the one monotonic clock of the event history, and a lock's own view of time
// (monotonic, or seed 000's cached clock that ticks every 5 ms), with an optional rate and skew for the
// clock stories (F7: a client whose clock runs slow believes its Redlock is valid for longer).
#pragma once

#include <QtGlobal>

#include <memory>

class CachedClockTicker;

class LockClock
{
public:
    enum class Source {
        Monotonic, // std::chrono::steady_clock, read on every call
        Cached, // seed 000's SystemTimeCache: a background thread stores the time every 5 ms
    };

    // `rate` scales elapsed time as this clock sees it (0.5: runs at half speed); `offsetMs` is added to
    // wallMs() (a client whose wall clock is wrong, which the fair lock's waiter deadlines depend on).
    explicit LockClock(Source source = Source::Monotonic, double rate = 1.0, qint64 offsetMs = 0);
    ~LockClock();
    LockClock(const LockClock &other);
    LockClock &operator=(const LockClock &other);

    Source source() const { return m_source; }
    double rate() const { return m_rate; }
    qint64 offsetMs() const { return m_offsetMs; }

    // Milliseconds on this clock. Only differences mean something (timeouts, elapsed, validity).
    qint64 nowMs() const;
    // Epoch milliseconds as this client believes them (system clock + offset). Fair-lock deadlines use it.
    qint64 wallMs() const;

    // The history clock: steady_clock in microseconds. Every timestamp LockScope records comes from here,
    // so events of all threads of a run are in one exact real-time order.
    static qint64 monotonicUs();
    // How often the cached clock ticks (seed 000 sleeps 5 ms between updates).
    static constexpr int cachedTickMs = 5;

    static const char *sourceName(Source source);

private:
    Source m_source;
    double m_rate;
    qint64 m_offsetMs;
    qint64 m_originUs; // rate applies to time elapsed since the clock was made
    std::shared_ptr<CachedClockTicker> m_ticker; // shared by every cached clock alive
};
