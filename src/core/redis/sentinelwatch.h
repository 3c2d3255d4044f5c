// Listens to Redis Sentinel's +switch-master for one master name, on a thread of its own, so connections
// through Sentinel move to a promoted replica at once instead of when the old master drops them. Shared by
// every connection to the same master; the thread stops when the last one lets go.
#pragma once

#include "connectionsettings.h"

#include <QMutex>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

class RedisConnection;

class SentinelWatch
{
public:
    // The watch for `settings.sentinel` (its sentinels and master name), started if needed.
    static std::shared_ptr<SentinelWatch> acquire(const ConnectionSettings &settings);

    explicit SentinelWatch(const ConnectionSettings &settings);
    ~SentinelWatch();
    SentinelWatch(const SentinelWatch &) = delete;
    SentinelWatch &operator=(const SentinelWatch &) = delete;

    // Grows on every +switch-master of our master, and when the subscription had to be made again (a
    // switch may have been missed meanwhile): a connection that saw another number asks the sentinels again.
    quint64 switches() const { return m_switches.load(); }
    // True while subscribed to a sentinel.
    bool isListening() const { return m_listening.load(); }

private:
    void run();
    bool sleepUnlessStopped(int ms);

    ConnectionSettings m_settings;
    std::atomic<quint64> m_switches = 0;
    std::atomic_bool m_listening = false;
    std::atomic_bool m_stop = false;
    std::mutex m_waitMutex;
    std::condition_variable m_wake;
    QMutex m_connectionMutex; // the destructor interrupts the subscriber's connection from another thread
    RedisConnection *m_connection = nullptr;
    std::thread m_thread;
};
