// An append-only log with one writer thread and any number of readers that never block the writer for long:
// elements live in fixed-size chunks that never move, and the published size is an atomic.
//
// A chunk's elements are constructed one by one as they are appended, not all when the chunk is made: the
// memory of a chunk is touched only as far as it is filled. A run of 5,000 workers has 5,000 logs whose
// first chunk mostly stays a fifth full; constructing the whole chunk up front cost each worker eight page
// faults at its first event and the fleet about 120 MB.
#pragma once

#include <QList>
#include <QMutex>

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
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
    ~ChunkedLog()
    {
        if constexpr (!std::is_trivially_destructible_v<T>) {
            const qsizetype n = m_size.load();
            for (qsizetype i = 0; i < n; ++i)
                element(i)->~T();
        }
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
            auto chunk = std::unique_ptr<Chunk>(new Chunk); // default-initialised: no element touched yet
            m_writeChunk = chunk.get();
            QMutexLocker lock(&m_chunksMutex); // taken once per chunk, not per element
            m_chunks.push_back(std::move(chunk));
        }
        new (m_writeChunk->bytes + size_t(offset) * sizeof(T)) T(value);
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
                chunks.push_back(elements(m_chunks[size_t(c)].get()));
        }
        out.reserve(out.size() + (to - from));
        const qsizetype firstChunk = from >> ChunkBits;
        for (qsizetype i = from; i < to; ++i)
            out.append(chunks[size_t((i >> ChunkBits) - firstChunk)][i & (ChunkSize - 1)]);
    }

    T at(qsizetype index) const
    {
        QMutexLocker lock(&m_chunksMutex);
        return *element(index);
    }

private:
    struct Chunk
    {
        alignas(T) std::byte bytes[sizeof(T) * size_t(ChunkSize)];
    };
    static T *elements(Chunk *chunk) { return std::launder(reinterpret_cast<T *>(chunk->bytes)); }
    // Callers hold m_chunksMutex, or are the writer (or the destructor, which may destroy through a const
    // pointer): m_chunks does not change under them.
    const T *element(qsizetype index) const
    {
        return elements(m_chunks[size_t(index >> ChunkBits)].get()) + (index & (ChunkSize - 1));
    }

    const qsizetype m_capacity;
    std::atomic<qsizetype> m_size {0};
    std::atomic<qsizetype> m_dropped {0};
    Chunk *m_writeChunk = nullptr; // writer thread only
    mutable QMutex m_chunksMutex;
    std::vector<std::unique_ptr<Chunk>> m_chunks;
};
