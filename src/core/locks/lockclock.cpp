// LockClock: monotonic and cached clock sources; the cached ticker thread lives while a cached clock does.
#include "lockclock.h"

#include <QDateTime>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

// The cached clock of seed 000: one thread refreshes an atomic every 5 ms, readers never call the clock.
class CachedClockTicker
{
public:
    CachedClockTicker()
        : m_nowUs(LockClock::monotonicUs())
    {
        m_thread = std::thread([this] {
            std::unique_lock lock(m_mutex);
            while (!m_stop) {
                m_nowUs.store(LockClock::monotonicUs(), std::memory_order_relaxed);
                m_wake.wait_for(lock, std::chrono::milliseconds(LockClock::cachedTickMs));
            }
        });
    }
    ~CachedClockTicker()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    qint64 nowUs() const { return m_nowUs.load(std::memory_order_relaxed); }

    // One ticker for every cached clock alive; it stops when the last of them goes.
    static std::shared_ptr<CachedClockTicker> shared()
    {
        static std::mutex mutex;
        static std::weak_ptr<CachedClockTicker> current;
        std::lock_guard lock(mutex);
        std::shared_ptr<CachedClockTicker> ticker = current.lock();
        if (!ticker) {
            ticker = std::make_shared<CachedClockTicker>();
            current = ticker;
        }
        return ticker;
    }

private:
    std::atomic<qint64> m_nowUs;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

LockClock::LockClock(Source source, double rate, qint64 offsetMs)
    : m_source(source)
    , m_rate(rate > 0 ? rate : 1.0)
    , m_offsetMs(offsetMs)
    , m_originUs(monotonicUs())
{
    if (m_source == Source::Cached)
        m_ticker = CachedClockTicker::shared();
}

LockClock::~LockClock() = default;
LockClock::LockClock(const LockClock &other) = default;
LockClock &LockClock::operator=(const LockClock &other) = default;

qint64 LockClock::monotonicUs()
{
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

qint64 LockClock::nowMs() const
{
    const qint64 us = m_ticker ? m_ticker->nowUs() : monotonicUs();
    if (m_rate == 1.0)
        return us / 1000;
    return (m_originUs + qint64(double(us - m_originUs) * m_rate)) / 1000;
}

qint64 LockClock::wallMs() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_offsetMs;
}

const char *LockClock::sourceName(Source source)
{
    return source == Source::Cached ? "cached" : "monotonic";
}
