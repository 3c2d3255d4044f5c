// An append-only log with one writer thread and any number of readers that never block the writer for long:
// elements live in fixed-size chunks that never move, and the published size is an atomic.
#pragma once

#include <QList>
#include <QMutex>

#include <atomic>
#include <memory>
#include <vector>

template<typename T, int ChunkBits = 12> class ChunkedLog
{
public:
    static constexpr qsizetype ChunkSize = qsizetype(1) << ChunkBits;

    // `capacity`: appends beyond it are counted as dropped instead of stored (memory stays bounded).
    explicit ChunkedLog(qsizetype capacity = qsizetype(1) << 26)
        : m_capacity(capacity)
    {
    }
    ChunkedLog(const ChunkedLog &) = delete;
    ChunkedLog &operator=(const ChunkedLog &) = delete;

    // Writer thread only. Returns the index of the element, or -1 when the log is full.
    qsizetype append(const T &value)
    {
        const qsizetype n = m_size.load(std::memory_order_relaxed);
        if (n >= m_capacity) {
            m_dropped.fetch_add(1, std::memory_order_relaxed);
            return -1;
        }
        const qsizetype offset = n & (ChunkSize - 1);
        if (offset == 0) {
            auto chunk = std::make_unique<T[]>(size_t(ChunkSize));
            m_writeChunk = chunk.get();
            QMutexLocker lock(&m_chunksMutex); // taken once per chunk, not per element
            m_chunks.push_back(std::move(chunk));
        }
        m_writeChunk[offset] = value;
        m_size.store(n + 1, std::memory_order_release);
        return n;
    }

    // Number of elements a reader may read; elements below it never change.
    qsizetype size() const { return m_size.load(std::memory_order_acquire); }
    qsizetype dropped() const { return m_dropped.load(std::memory_order_relaxed); }

    // Appends elements [from, to) to `out`; `to` is clamped to size().
    void readRange(qsizetype from, qsizetype to, QList<T> &out) const
    {
        to = std::min(to, size());
        if (from >= to)
            return;
        std::vector<const T *> chunks;
        {
            QMutexLocker lock(&m_chunksMutex);
            const qsizetype last = (to - 1) >> ChunkBits;
            for (qsizetype c = from >> ChunkBits; c <= last; ++c)
                chunks.push_back(m_chunks[size_t(c)].get());
        }
        out.reserve(out.size() + (to - from));
        const qsizetype firstChunk = from >> ChunkBits;
        for (qsizetype i = from; i < to; ++i)
            out.append(chunks[size_t((i >> ChunkBits) - firstChunk)][i & (ChunkSize - 1)]);
    }

    T at(qsizetype index) const
    {
        QMutexLocker lock(&m_chunksMutex);
        return m_chunks[size_t(index >> ChunkBits)][index & (ChunkSize - 1)];
    }

private:
    const qsizetype m_capacity;
    std::atomic<qsizetype> m_size {0};
    std::atomic<qsizetype> m_dropped {0};
    T *m_writeChunk = nullptr; // writer thread only
    mutable QMutex m_chunksMutex;
    std::vector<std::unique_ptr<T[]>> m_chunks;
};
