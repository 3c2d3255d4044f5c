// LockClient: the process-level objects and the interruptible sleep every wait strategy uses.
#include "lockclient.h"

#include <QRandomGenerator>

#include <chrono>
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

LockClient::LockClient()
    : LockClient(Options {})
{
}

LockClient::LockClient(const Options &options)
    : m_options(options)
    , m_id(options.id.isEmpty() ? randomUuid() : options.id)
    , m_watchdog(m_hooks)
    , m_subscriber(m_hooks, options.pubsubSliceMs, options.pubsubLingerMs, options.eventLoop,
                   options.shardedPubSub)
{
}

LockClient::~LockClient()
{
    stop();
}

QByteArray LockClient::ownerField(qint64 threadId) const
{
    return m_id + ':' + QByteArray::number(threadId);
}

LockClock LockClient::clock(LockClock::Source source) const
{
    return LockClock(source, m_options.clockRate, m_options.clockOffsetMs);
}

void LockClient::setPaused(bool paused)
{
    m_watchdog.setPaused(paused);
}

void LockClient::stop()
{
    {
        std::lock_guard lock(m_sleepMutex);
        m_stopped = true;
    }
    m_sleepWake.notify_all();
    m_subscriber.stop();
}

bool LockClient::sleepUs(qint64 us)
{
    std::unique_lock lock(m_sleepMutex);
    if (us > 0)
        m_sleepWake.wait_for(lock, std::chrono::microseconds(us), [this] { return m_stopped.load(); });
    return !m_stopped;
}

namespace {

// Tokens must be unique, not secret (anyone who can read the key reads its token), so a fast generator per
// thread, seeded from the system's, does: QUuid::createUuid asks the system generator for every token, and
// QRandomGenerator::global() takes a lock each call. Together they were a twentieth of a lock cycle.
std::mt19937_64 &tokenGenerator()
{
    thread_local std::mt19937_64 generator([] {
        std::seed_seq seed {QRandomGenerator::system()->generate(), QRandomGenerator::system()->generate(),
                            QRandomGenerator::system()->generate(), QRandomGenerator::system()->generate()};
        return std::mt19937_64(seed);
    }());
    return generator;
}

// Writes `count` random bytes as lower-case hex to `out`, inserting '-' before the byte positions in `dashes`.
void writeHex(const quint8 *bytes, int count, char *out, std::initializer_list<int> dashes = {})
{
    static constexpr char digits[] = "0123456789abcdef";
    for (int i = 0; i < count; ++i) {
        if (std::find(dashes.begin(), dashes.end(), i) != dashes.end())
            *out++ = '-';
        *out++ = digits[bytes[i] >> 4];
        *out++ = digits[bytes[i] & 0xf];
    }
}

void randomBytes(quint8 *out, int count)
{
    std::mt19937_64 &generator = tokenGenerator();
    for (int i = 0; i < count; i += 8) {
        const quint64 word = generator();
        std::memcpy(out + i, &word, size_t(std::min(8, count - i)));
    }
}

} // namespace

QByteArray LockClient::randomUuid()
{
    quint8 bytes[16];
    randomBytes(bytes, 16);
    bytes[6] = quint8((bytes[6] & 0x0f) | 0x40); // version 4
    bytes[8] = quint8((bytes[8] & 0x3f) | 0x80); // RFC 4122 variant
    QByteArray text(36, Qt::Uninitialized);
    writeHex(bytes, 16, text.data(), {4, 6, 8, 10});
    return text;
}

QByteArray LockClient::randomHex(int bytes)
{
    std::vector<quint8> raw(size_t(std::max(0, bytes)));
    randomBytes(raw.data(), int(raw.size()));
    QByteArray text(qsizetype(raw.size()) * 2, Qt::Uninitialized);
    writeHex(raw.data(), int(raw.size()), text.data());
    return text;
}
