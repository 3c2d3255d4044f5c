// Fault hooks: the places where the simulator (and the tests) make a lock's flaw happen on purpose instead
// of waiting for bad luck. Every hook is empty by default; an empty std::function costs one branch.
//
// Hooks are called on the thread doing the operation (a worker, or the process's watchdog / pub/sub
// thread), so they must be thread-safe. Set them before the workers start (LockClient::setFaultHooks);
// they are not meant to change while operations run. A hook may block (that is how delays are made), but
// it must return: it is called while a lock operation is in flight.
#pragma once

#include "redis/redisconnection.h"
#include "redis/redisresult.h"

#include <QByteArray>
#include <QString>

#include <functional>

struct FaultHooks
{
    // setnx-expire (seed 001): called after SETNX succeeded, before EXPIRE is sent. Return true to crash
    // there: EXPIRE is never sent, the acquire returns Outcome::Crashed and the key stays without a TTL
    // (every other worker starves until someone deletes it by hand).
    std::function<bool(qint64 threadId, const QByteArray &key)> crashAfterSetnx;

    // Two-step releases (setnx-expire, set-nx-px-get-del): called after the GET matched our value and
    // before the DEL. Block here past the lease (and let another worker acquire) to make the DEL delete a
    // foreign lock.
    std::function<void(qint64 threadId, const QByteArray &key)> betweenGetAndDel;

    // Called before every command a lock sends and after every reply it receives (a slow network). The
    // watchdog's renewals pass through them too, with the owner's thread id.
    std::function<void(qint64 threadId, const RedisCommand &command)> beforeSend;
    std::function<void(qint64 threadId, const RedisResult &result)> afterReceive;
    // The same, with the server the command goes to ("127.0.0.1:6379"): a network that is slow towards
    // some servers only (the Redlock stories).
    std::function<void(qint64 threadId, const QString &server, const RedisCommand &command)> beforeSendTo;
    std::function<void(qint64 threadId, const QString &server, const RedisResult &result)> afterReceiveFrom;

    // A network partition between this process and `server`: return true when a command sent now is lost.
    // The hook waits `timeoutMs` first (the connection's command timeout: how long a client waits for a
    // reply that never comes); the command is then not sent and the operation sees a Timeout error. Called
    // before every command a lock sends (renewals included); Redlock rounds ask with timeoutMs 0 and wait for
    // all their servers at once.
    std::function<bool(qint64 threadId, const QString &server, int timeoutMs)> cutOff;

    // Called before each watchdog renewal. Return false to skip it: nothing is sent, the timer re-arms.
    // (A paused process is LockClient::setPaused, which stops the whole watchdog.)
    std::function<bool(qint64 threadId, const QByteArray &key)> allowRenewal;

    // Called for every pub/sub message the process's listener receives. Return false to drop it (a lost
    // notification): waiters then wake only when their TTL fallback runs out.
    std::function<bool(const QByteArray &channel, const QByteArray &message)> deliverMessage;

    bool any() const
    {
        return crashAfterSetnx || betweenGetAndDel || beforeSend || afterReceive || beforeSendTo
            || afterReceiveFrom || cutOff || allowRenewal || deliverMessage;
    }
};
