// Keeps a scan gentle on the server it reads. A pipeline of a thousand commands holds the server for its
// whole length while other clients wait, so the scan's rounds are sent in small chunks, and the scan as a
// whole may keep the server busy only for a share of the time (its duty): after each chunk the scan waits
// until its round trips so far fit that share, which leaves most of the server's time to everyone else. An
// optional budget in commands per second makes it gentler still. One pacer is shared by every connection of a
// scan.
#pragma once

#include <QElapsedTimer>

#include <condition_variable>
#include <mutex>

class ScanPacer
{
public:
    // `duty`: the share of wall time the scan's round trips may take (0 < duty ≤ 1; 1: no waiting).
    // `maxOpsPerSecond`: 0 for no budget.
    ScanPacer(double duty, int maxOpsPerSecond, int chunkCommands);

    // Commands per pipelined chunk.
    int chunkCommands() const { return m_chunk; }
    // Waits, if needed, before sending `commands` more; false if interrupted meanwhile.
    bool beforeChunk(int commands);
    // A chunk's round trip took `microseconds`.
    void afterChunk(qint64 microseconds);
    // Thread-safe: wakes every wait, which then return false.
    void interrupt();
    // Total time spent waiting, for the benchmark and the logs.
    qint64 waitedUs() const;

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    QElapsedTimer m_clock;
    double m_duty;
    int m_maxOps;
    int m_chunk;
    qint64 m_busyUs = 0;
    qint64 m_ops = 0;
    qint64 m_waitedUs = 0;
    bool m_interrupted = false;
};
