// LockCatalog: the ten algorithms, their teaching texts and defaults, and the factory.
#include "lockcatalog.h"
#include "customlockscripts.h"
#include "customlualock.h"
#include "redissonfairlock.h"
#include "redissonlock.h"
#include "redissonnames.h"
#include "redissonreadwritelock.h"
#include "redlock.h"
#include "setnxexpirelock.h"
#include "setnxpxlock.h"

#include <QJsonArray>

namespace {

// What every Redisson-family lock shares: scripts for everything, owner checks, reentrancy, pub/sub
// waiting, and Redisson's default of a 30 s lease kept up by the watchdog.
void redissonFamily(LockAlgorithmInfo &a)
{
    a.commands
        = {QStringLiteral("EVALSHA"), QStringLiteral("SUBSCRIBE"), QStringLiteral("DEL (unlock latch)")};
    a.checksOwner = true;
    a.atomicRelease = true;
    a.reentrant = true;
    a.publishesRelease = true;
    a.defaults.leaseMs = RedissonNames::watchdogTimeoutMs;
    a.defaults.watchdog = true;
    a.defaults.wait = WaitStrategy::PubSub;
}

QList<LockAlgorithmInfo> makeCatalog()
{
    QList<LockAlgorithmInfo> list;

    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("setnx-expire");
        a.title = QStringLiteral("SETNX, then EXPIRE");
        a.origin = QStringLiteral("Seed 001: MayiktRedisLock (Jedis)");
        a.explanation = QStringLiteral(
            "The oldest recipe. A worker sends SETNX with a fresh UUID: if the key did not exist, the "
            "worker now holds the lock, and a second command, EXPIRE, gives the key a lifetime in whole "
            "seconds so that a crashed holder cannot block everyone forever. Waiting workers spin in a "
            "tight loop, sending SETNX again and again until their deadline. To release, the holder reads "
            "the key with GET, compares the value with its UUID in its own code, and deletes the key with "
            "DEL.");
        a.flaw = QStringLiteral(
            "Two commands where one is needed, twice. A crash after SETNX and before EXPIRE leaves a lock "
            "with no TTL: every other worker starves until someone deletes it by hand. The GET-then-DEL "
            "release deletes another worker's lock when the lease expires between the two commands. The "
            "busy spin floods the server while it waits.");
        a.commands = {QStringLiteral("SETNX"), QStringLiteral("EXPIRE"), QStringLiteral("GET"),
                      QStringLiteral("DEL")};
        a.faults = {QStringLiteral("crashAfterSetnx"), QStringLiteral("betweenGetAndDel")};
        a.checksOwner = true;
        a.defaults.leaseMs = 5000;
        a.defaults.wait = WaitStrategy::BusySpin;
        a.defaults.acquireTimeoutMs = 5000;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("set-nx-px-del");
        a.title = QStringLiteral("SET NX PX, unconditional DEL");
        a.origin = QStringLiteral("Seed 002, steps 1 and 2: DistributedLock (Jedis)");
        a.explanation = QStringLiteral(
            "One atomic command, SET key \"lockValue\" NX PX lease, takes the lock and gives it a "
            "lifetime at once, so a crash can no longer leave a lock without a TTL. A worker that finds "
            "the lock taken sleeps a fixed interval and tries again until its acquire timeout runs out "
            "(seed 002 then throws a TimeoutException). Releasing is a plain DEL of the key.");
        a.flaw = QStringLiteral(
            "Every holder writes the same value and the release deletes whatever is there. A holder whose "
            "lease ran out while it was still working deletes the next holder's lock when it finishes, "
            "and a third worker walks in: two workers in the critical section. A worker that never held "
            "the lock can release it too.");
        a.commands = {QStringLiteral("SET NX PX"), QStringLiteral("DEL")};
        a.faults = {QStringLiteral("a lease shorter than the critical section")};
        a.defaults.wait = WaitStrategy::FixedInterval;
        a.defaults.retryIntervalMs = 100;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("set-nx-px-get-del");
        a.title = QStringLiteral("SET NX PX with an owner id, GET then DEL");
        a.origin = QStringLiteral("Seed 002, step 3 (and seed 001's release)");
        a.explanation = QStringLiteral(
            "Each worker writes its own owner id (\"<client id>:<thread id>\") with SET NX PX, so that "
            "the release can check that the lock is still its own: GET the key, compare the value in the "
            "client, and DEL the key only if it matches.");
        a.flaw = QStringLiteral(
            "The check and the delete are two round trips. If the lease expires right after the GET "
            "matched and another worker acquires the lock, the DEL removes that worker's lock. Seed 002 "
            "argues that a Lua script would only save a round trip; a delay between GET and DEL shows "
            "that it is a race.");
        a.commands = {QStringLiteral("SET NX PX"), QStringLiteral("GET"), QStringLiteral("DEL")};
        a.faults = {QStringLiteral("betweenGetAndDel")};
        a.checksOwner = true;
        a.defaults.wait = WaitStrategy::FixedInterval;
        a.defaults.retryIntervalMs = 100;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("set-nx-px-lua");
        a.title = QStringLiteral("SET NX PX with a token, Lua compare-and-delete");
        a.origin = QStringLiteral("Seeds 000 and 003; the redis.io single-instance lock");
        a.explanation = QStringLiteral(
            "The single-instance lock from redis.io. Acquire with SET key token NX PX lease, with a "
            "random token for every acquisition, and poll every 50 ms until the acquire timeout. Release "
            "with a Lua script that deletes the key only if it still holds the token: the comparison and "
            "the deletion run as one step inside Redis, so nothing can slip in between.");
        a.flaw = QStringLiteral(
            "The release is safe, the lease is not. When the critical section (or a GC pause, or a slow "
            "network) outlasts the lease, the key expires while the holder is still working and a second "
            "worker acquires it: two holders, and nothing tells the first one.");
        a.scripts = {QStringLiteral("compare_and_delete"), QStringLiteral("compare_and_pexpire")};
        a.commands = {QStringLiteral("SET NX PX"), QStringLiteral("EVALSHA")};
        a.faults = {QStringLiteral("a lease shorter than the critical section")};
        a.checksOwner = true;
        a.atomicRelease = true;
        a.defaults.wait = WaitStrategy::FixedInterval;
        a.defaults.retryIntervalMs = 50;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("set-nx-px-lua-watchdog");
        a.title = QStringLiteral("SET NX PX with a token, Lua release, renewal watchdog");
        a.origin = QStringLiteral("Seed 002, step 4: a HashedWheelTimer extends the lease");
        a.explanation = QStringLiteral(
            "Seed 002's answer to leases that are too short. After acquiring, a timer (Netty's "
            "HashedWheelTimer in the seed, the process's watchdog thread here) extends the lease every "
            "lease/3 with a Lua compare-and-PEXPIRE, re-arms itself after each success, and is cancelled "
            "on release. A process that crashes stops renewing, so its lock still expires.");
        a.flaw = QStringLiteral(
            "Safe only while the process runs. A stop-the-world pause (a long GC) stops the watchdog "
            "together with the worker: the lease runs out, another worker acquires the lock, and the "
            "paused worker wakes up believing it still holds it.");
        a.scripts = {QStringLiteral("compare_and_delete"), QStringLiteral("compare_and_pexpire")};
        a.commands = {QStringLiteral("SET NX PX"), QStringLiteral("EVALSHA")};
        a.faults = {QStringLiteral("process pause (LockClient::setPaused)"), QStringLiteral("allowRenewal")};
        a.checksOwner = true;
        a.atomicRelease = true;
        a.defaults.watchdog = true;
        a.defaults.wait = WaitStrategy::FixedInterval;
        a.defaults.retryIntervalMs = 50;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("redisson-reentrant");
        a.title = QStringLiteral("Redisson RLock: reentrant, watchdog, pub/sub");
        a.origin = QStringLiteral("Seeds 000 and 003: Redisson 3.x RedissonLock");
        a.explanation = QStringLiteral(
            "Redisson keeps the lock as a hash. Its one field is the owner, \"<client uuid>:<thread "
            "id>\", and the value counts how many times that thread holds the lock: the same thread may "
            "lock again (reentrancy) and must unlock as many times. Acquire and release are Lua scripts. "
            "Without an explicit lease, a watchdog per client keeps the lease at 30 s, renewing it every "
            "10 s while the thread holds the lock. A thread that finds the lock taken subscribes to "
            "redisson_lock__channel:{name} and sleeps until the holder's last release publishes \"0\" "
            "there, or at most for the TTL its failed attempt returned, in case the message is lost.");
        a.flaw = QStringLiteral(
            "None in normal operation, but it is still a lease: a process paused for longer than the "
            "lease (its watchdog is paused with it) loses the lock without knowing, and a failover to a "
            "replica that had not yet received the lock hands it to a second client.");
        a.scripts = {QStringLiteral("redisson_lock"), QStringLiteral("redisson_unlock"),
                     QStringLiteral("redisson_renew")};
        a.faults
            = {QStringLiteral("process pause (LockClient::setPaused)"), QStringLiteral("deliverMessage")};
        redissonFamily(a);
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("redisson-fair");
        a.title = QStringLiteral("Redisson fair lock: first come, first served");
        a.origin = QStringLiteral("Redisson 3.x RedissonFairLock");
        a.explanation = QStringLiteral(
            "Like RLock, plus a queue. Waiters line up in the list redisson_lock_queue:{name}, each with "
            "a deadline in the sorted set redisson_lock_timeout:{name}, and the free lock goes only to "
            "the waiter at the head. A waiter that disappears loses its place when its deadline passes (its "
            "wait time, or 5 minutes for one that waits without a limit), and a release wakes only the head, "
            "on its own channel "
            "redisson_lock__channel:{name}:<uuid>:<thread id>.");
        a.flaw = QStringLiteral(
            "Waiter deadlines come from the clients' wall clocks: a client whose clock runs ahead drops "
            "waiters before their time, one whose clock runs behind keeps a crashed waiter at the head "
            "and blocks everyone behind it. Fairness costs throughput: the free lock waits for the head "
            "to wake up.");
        a.scripts = {QStringLiteral("redisson_fair_lock"), QStringLiteral("redisson_fair_unlock"),
                     QStringLiteral("redisson_fair_acquire_failed"), QStringLiteral("redisson_renew")};
        a.faults = {QStringLiteral("client wall-clock offset (LockClient::Options::clockOffsetMs)"),
                    QStringLiteral("a waiter that crashes in the queue")};
        redissonFamily(a);
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("redisson-rw");
        a.title = QStringLiteral("Redisson read-write lock");
        a.origin = QStringLiteral("Redisson 3.x RedissonReadWriteLock");
        a.explanation = QStringLiteral(
            "Many readers or one writer. One hash holds the mode (read or write), a field per reading "
            "thread with its hold count, and the writer's field \"<uuid>:<thread id>:write\". Every read "
            "hold also has its own timeout key {name}:<uuid>:<thread id>:rwlock_timeout:<n>, so one "
            "reader's lease does not end the others'. Waiters sleep on redisson_rwlock:{name}: a read "
            "release publishes \"0\", a write release \"1\", which wakes every waiting thread at once.");
        a.flaw = QStringLiteral(
            "Lease-based like RLock (a pause longer than the lease loses it), and without writer "
            "preference: a steady stream of readers can keep a writer waiting indefinitely.");
        a.scripts = {QStringLiteral("redisson_read_lock"),    QStringLiteral("redisson_read_unlock"),
                     QStringLiteral("redisson_read_renew"),   QStringLiteral("redisson_write_lock"),
                     QStringLiteral("redisson_write_unlock"), QStringLiteral("redisson_renew")};
        a.faults = {QStringLiteral("process pause (LockClient::setPaused)")};
        redissonFamily(a);
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("fenced");
        a.title = QStringLiteral("Fenced lock: a lock with a fencing token");
        a.origin
            = QStringLiteral("Kleppmann, \"How to do distributed locking\"; Redisson 3.x RedissonFencedLock");
        a.explanation = QStringLiteral(
            "A Redisson lock that also increments the counter redisson_lock_token:{name} on every "
            "acquisition and hands the new value, the fencing token, to the holder. The holder sends its "
            "token with every write; the storage keeps the highest token it has seen and refuses writes "
            "that carry a lower one. A holder that lost its lock during a pause can no longer overwrite "
            "the next holder's work.");
        a.flaw = QStringLiteral(
            "Only as good as the storage: the protected resource must check the token (LockScope's fenced "
            "store does, with fenced_write.lua) — and, for a read-modify-write, see it on the read too "
            "(fenced_read.lua), or a stale holder that writes before the new one is not refused. Locks still "
            "expire during pauses; fencing turns the lost update that follows into a refused write.");
        a.scripts = {QStringLiteral("redisson_fenced_lock"), QStringLiteral("redisson_unlock"),
                     QStringLiteral("redisson_renew"), QStringLiteral("fenced_read"), QStringLiteral("fenced_write")};
        a.faults = {QStringLiteral("process pause (LockClient::setPaused)")};
        redissonFamily(a);
        a.fencing = true;
        list << a;
    }
    {
        LockAlgorithmInfo a;
        a.id = QStringLiteral("redlock");
        a.title = QStringLiteral("Redlock over N independent servers");
        a.origin = QStringLiteral(
            "redis.io \"Distributed locks with Redis\" (Redlock); mentioned in seeds 002 and 003");
        a.explanation = QStringLiteral(
            "The same key and a random token are set with SET NX PX on N independent servers at once, "
            "each with a short timeout. The lock is held when a majority (N/2+1) granted it and time is "
            "left: validity = lease - elapsed - (lease x 0.01 + 2 ms). A failed round releases the key on "
            "every server, then the client retries after a random delay. Release runs the Lua "
            "compare-and-delete on every server.");
        a.flaw = QStringLiteral(
            "Its safety rests on timing assumptions. A server that restarts without persistence forgets "
            "the lock and grants it again; a clock that jumps on a server expires it early; a client "
            "paused past the validity keeps using a lock that is gone. Rounds in which every client wins "
            "some votes but none a majority leave everyone retrying.");
        a.scripts = {QStringLiteral("compare_and_delete"), QStringLiteral("compare_and_pexpire")};
        a.commands
            = {QStringLiteral("SET NX PX (on every server)"), QStringLiteral("EVALSHA (on every server)")};
        a.faults = {QStringLiteral("server restart without persistence"),
                    QStringLiteral("afterReceive (slow round)"),
                    QStringLiteral("client clock rate (LockClient::Options::clockRate)")};
        a.checksOwner = true;
        a.atomicRelease = true;
        a.multiServer = true;
        a.renewable = false;
        a.defaults.leaseMs = 10000;
        a.defaults.wait = WaitStrategy::Jitter;
        a.defaults.retryIntervalMs = 200;
        a.defaults.retryJitterMs = 100;
        a.defaults.acquireTimeoutMs = 3000;
        list << a;
    }
    return list;
}

} // namespace

QJsonObject LockAlgorithmInfo::toJson() const
{
    return QJsonObject {
        {QStringLiteral("id"), id},
        {QStringLiteral("title"), title},
        {QStringLiteral("origin"), origin},
        {QStringLiteral("explanation"), explanation},
        {QStringLiteral("flaw"), flaw},
        {QStringLiteral("scripts"), QJsonArray::fromStringList(scripts)},
        {QStringLiteral("commands"), QJsonArray::fromStringList(commands)},
        {QStringLiteral("faults"), QJsonArray::fromStringList(faults)},
        {QStringLiteral("checks_owner"), checksOwner},
        {QStringLiteral("atomic_release"), atomicRelease},
        {QStringLiteral("reentrant"), reentrant},
        {QStringLiteral("publishes_release"), publishesRelease},
        {QStringLiteral("fencing"), fencing},
        {QStringLiteral("multi_server"), multiServer},
        {QStringLiteral("renewable"), renewable},
        {QStringLiteral("defaults"), defaults.toJson()},
    };
}

const QList<LockAlgorithmInfo> &LockCatalog::all()
{
    static const QList<LockAlgorithmInfo> catalog = makeCatalog();
    return catalog;
}

const LockAlgorithmInfo &LockCatalog::customLua()
{
    static const LockAlgorithmInfo info = [] {
        LockAlgorithmInfo a;
        a.id = customLuaId();
        a.title = QStringLiteral("Your own lock (Lua)");
        a.origin = QStringLiteral("written by the user: acquire.lua, release.lua, renew.lua");
        a.explanation = CustomLockScripts::conventionText();
        a.flaw = QStringLiteral("Whatever it has: that is what 'lockscope-cli explore --lua DIR' is for.");
        a.commands = {QStringLiteral("EVALSHA"), QStringLiteral("SCRIPT LOAD")};
        // Nothing is assumed of the user's release: every deletion it reports is checked against the holders.
        a.checksOwner = false;
        a.atomicRelease = false;
        a.renewable = true; // when it has a renew.lua (check() says so otherwise)
        a.defaults.leaseMs = 10000;
        return a;
    }();
    return info;
}

const LockAlgorithmInfo *LockCatalog::find(const QString &id)
{
    for (const LockAlgorithmInfo &a : all()) {
        if (a.id == id)
            return &a;
    }
    if (id == customLuaId())
        return &customLua();
    return nullptr;
}

QStringList LockCatalog::ids()
{
    QStringList ids;
    for (const LockAlgorithmInfo &a : all())
        ids << a.id;
    return ids;
}

QString LockCatalog::check(const LockAlgorithmInfo &info, const LockOptions &options)
{
    const QString problem = options.validate();
    if (!problem.isEmpty())
        return problem;
    if (options.wait == WaitStrategy::PubSub && !info.publishesRelease)
        return QStringLiteral("%1 publishes nothing on release, so its waiters cannot sleep on pub/sub; use "
                              "busy-spin, fixed, jitter or backoff")
            .arg(info.id);
    if (options.watchdog && !info.renewable)
        return QStringLiteral(
                   "%1 has no watchdog: its validity is fixed when the round ends (extend it explicitly)")
            .arg(info.id);
    if (info.id == customLuaId()) {
        if (!options.customScripts)
            return QStringLiteral("custom-lua needs its scripts (--lua DIR, or the algorithm's \"dir\" or \"lua\")");
        if (options.watchdog && !options.customScripts->renew())
            return QStringLiteral("a watchdog renews with renew.lua, and this lock has none");
    }
    return QString();
}

std::unique_ptr<DistributedLock> LockCatalog::create(const QString &id, LockClient &client,
                                                     const QByteArray &name, qint64 threadId,
                                                     const LockOptions &options, QString *error)
{
    auto fail = [error](const QString &text) {
        if (error)
            *error = text;
        return std::unique_ptr<DistributedLock>();
    };
    const LockAlgorithmInfo *info = find(id);
    if (!info)
        return fail(
            QStringLiteral("unknown algorithm '%1'; known: %2").arg(id, ids().join(QStringLiteral(", "))));
    if (name.isEmpty())
        return fail(QStringLiteral("the lock name must not be empty"));
    const QString problem = check(*info, options);
    if (!problem.isEmpty())
        return fail(problem);

    if (id == QLatin1String("setnx-expire"))
        return std::make_unique<SetnxExpireLock>(client, name, threadId, options);
    if (id == QLatin1String("set-nx-px-del"))
        return std::make_unique<SetNxPxLock>(client, id, SetNxPxLock::Release::UnconditionalDel, name,
                                             threadId, options);
    if (id == QLatin1String("set-nx-px-get-del"))
        return std::make_unique<SetNxPxLock>(client, id, SetNxPxLock::Release::GetThenDel, name, threadId,
                                             options);
    if (id == QLatin1String("set-nx-px-lua") || id == QLatin1String("set-nx-px-lua-watchdog"))
        return std::make_unique<SetNxPxLock>(client, id, SetNxPxLock::Release::CompareAndDelete, name,
                                             threadId, options);
    if (id == QLatin1String("redisson-reentrant"))
        return std::make_unique<RedissonLock>(client, name, threadId, options);
    if (id == QLatin1String("redisson-fair"))
        return std::make_unique<RedissonFairLock>(client, name, threadId, options);
    if (id == QLatin1String("redisson-rw"))
        return std::make_unique<RedissonReadWriteLock>(client, name, threadId, options);
    if (id == QLatin1String("fenced"))
        return std::make_unique<RedissonLock>(client, name, threadId, options, RedissonLock::Flavor::Fenced);
    if (id == QLatin1String("redlock"))
        return std::make_unique<Redlock>(client, name, threadId, options);
    if (id == customLuaId())
        return std::make_unique<CustomLuaLock>(client, name, threadId, options);
    return fail(QStringLiteral("algorithm '%1' is in the catalog but has no implementation").arg(id));
}

std::unique_ptr<DistributedLock> LockCatalog::create(const QString &id, LockClient &client,
                                                     const QByteArray &name, qint64 threadId, QString *error)
{
    const LockAlgorithmInfo *info = find(id);
    return create(id, client, name, threadId, info ? info->defaults : LockOptions {}, error);
}
