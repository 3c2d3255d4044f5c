// A simulation scenario as plain values: what servers, which algorithm with which options, what workload,
// which faults, and what must be seen for the run to pass. Read and written by ScenarioParser (JSON).
#pragma once

#include "expectation.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <memory>
#include <random>

class CustomLockScripts;

struct Scenario
{
    enum class Kind { Workload, Story };

    struct Servers
    {
        enum class Mode { Sandbox, Given };
        Mode mode = Mode::Sandbox; // Given: the connection the user chose (CLI options / GUI)
        int count = 1; // independent masters (Redlock uses all of them)
        int replicas = 0; // per master, for failover stories
        bool keyspaceEvents = false;
        // A sandbox Redis Cluster of 3 masters instead of independent servers: every lock lives on the
        // master of its key's slot. (A given cluster is the connection's business: --cluster.)
        bool cluster = false;
        // The master and its replicas are watched by 3 real sentinels: a failover is theirs (SENTINEL
        // FAILOVER), and clients find the new master by asking them.
        bool sentinel = false;
        double restartDelayMs = 0; // every restart stays down this long (F2's "delayed restart" mitigation)
        // Every worker process reaches every server through a TCP proxy of LockScope's (FaultProxy), so a
        // delay or a partition hits all its traffic — pub/sub and keyspace notifications too — as a real
        // network fault does. Always on for external clients.
        bool proxy = false;
    };

    // A real lock library as the workers (docs/client-protocol.md): each worker is a process of its own
    // running an adapter that speaks the client protocol.
    struct Client
    {
        QString adapter; // a shipped adapter's id (ClientCatalog)
        QStringList command; // or any program speaking the protocol (argv)
        QJsonObject options; // handed to the adapter's hello untouched
        int replyTimeoutMs = 30000; // no reply by then (after the acquire's wait): the outcome is unknown
        // How long the adapter may take to start and answer hello: an interpreter's start-up, the library's
        // import and its first connection take seconds on a busy machine, and that is no fault of the run's.
        int helloTimeoutMs = 30000;
        bool isSet() const { return !adapter.isEmpty() || !command.isEmpty(); }
        // "redis-py", or the command's program name ("my_adapter.py" of ["python3", "my_adapter.py"]).
        QString name() const
        {
            if (!adapter.isEmpty() || command.isEmpty())
                return adapter;
            return command.value(command.size() > 1 ? 1 : 0).section(u'/', -1);
        }
    };

    struct Retry
    {
        enum class Strategy { Spin, Fixed, Jitter, Backoff, PubSub };
        Strategy strategy = Strategy::Fixed;
        int intervalMs = 50;
        int jitterMs = 0;
        int maxMs = 1000; // cap for back-off
        // How pub/sub waiters listen: auto is sharded (SSUBSCRIBE / SPUBLISH) on a Redis >= 7 cluster, as
        // Redisson >= 3.22 does there, and classic (SUBSCRIBE / PUBLISH) everywhere else.
        enum class Channels { Auto, Sharded, Classic };
        Channels channels = Channels::Auto;
    };

    struct Algorithm
    {
        QString id = QStringLiteral("set-nx-px-lua");
        int leaseMs = 10000;
        bool watchdog = false;
        int watchdogPeriodMs = 0; // 0: lease / 3
        Retry retry;
        int acquireTimeoutMs = 10000;
        int reentrancy = 1; // how deep each worker re-acquires inside its section
        int poolSize = 0; // 0: a connection per worker; P: a shared pool of P connections per process
        enum class Clock { Monotonic, Cached5ms };
        Clock clock = Clock::Monotonic;
        bool fencing = false; // fenced algorithms: hand the token to the fenced store
        // custom-lua: the user's scripts, from "dir" (a folder, as --lua reads it) or "lua" (inline)
        std::shared_ptr<const CustomLockScripts> lua;
    };

    struct CriticalSection
    {
        enum class Distribution { Fixed, Uniform, Exponential };
        Distribution distribution = Distribution::Fixed;
        double ms = 1;
        double minMs = 0;
        double maxMs = 0;
        double meanMs = 0;
        // One section's length, drawn from the distribution.
        double sampleMs(std::mt19937_64 &random) const
        {
            switch (distribution) {
            case Distribution::Fixed:
                break;
            case Distribution::Uniform:
                return std::uniform_real_distribution<double>(minMs, std::max(minMs, maxMs))(random);
            case Distribution::Exponential:
                return std::exponential_distribution<double>(1.0 / meanMs)(random);
            }
            return ms;
        }
    };

    struct Workload
    {
        int processes = 1;
        int threadsPerProcess = 4;
        int locks = 1;
        // Random: each cycle picks a lock at random. Own: worker w always uses lock w % locks (no contention
        // when there are as many locks as workers).
        enum class LockChoice { Random, Own };
        LockChoice lockChoice = LockChoice::Random;
        // Threads: one OS thread per worker, each with a blocking connection (a lane is a real thread: the
        // teaching presets). Events: the workers are fibers multiplexed on one event loop per core
        // (FiberScheduler), so a run can hold thousands of them: the fleet presets.
        enum class Engine { Threads, Events };
        Engine engine = Engine::Threads;
        QString keyPrefix = QStringLiteral("lockscope:sim:");
        double durationS = 10;
        qint64 operations = 0; // > 0: each worker does this many cycles, then stops (duration is a cap)
        CriticalSection criticalSection;
        double thinkMs = 0;
        // Worker w starts its first cycle w × this after the run starts, so who takes the lock first does not
        // depend on a race between threads started together (the explorer aims its faults at those holds).
        double startStaggerMs = 0;
        quint64 seed = 1;
    };

    struct Resource
    {
        bool counter = true; // the seeds' stock counter: read → work → write inside the section
        qint64 counterInitial = 1000;
        bool fencedStore = false; // writes carry the fencing token; stale tokens are refused
    };

    struct Fault
    {
        enum class Type {
            Pause, // the process stops the world: its threads and its watchdog (like a JVM GC pause)
            Crash, // the process dies holding its locks
            Delay, // network delay per command (before send or after receive)
            ServerRestart, // without persistence: the server comes back empty
            ServerPause, // SIGSTOP for duration_ms
            ServerKill,
            Failover, // master dies, its replica is promoted, clients follow
            ClockSkew, // the process's validity clock runs at `rate` and is off by `skew_ms`
            CrashAfterSetnx, // seed 001's flaw: the process dies between SETNX and EXPIRE
            GetDelDelay, // seed 002's flaw: delay_ms between the release's GET and its DEL
            DropNotifications, // the process's pub/sub listener loses every release message
            Partition, // the process is cut off from `servers` (empty: all) for duration_ms
            Restart, // an external client's process starts again (after a crash, or killed first)
            DropConnections, // the proxy closes the process's connections: its library must reconnect
        };
        enum class Where { BeforeSend, AfterReceive };
        // Partition: which way the cut goes (a one-way cut lets commands reach the server while their
        // replies are lost: done, but the client does not know).
        enum class Direction { Both, ToServer, FromServer };
        Type type = Type::Pause;
        double atMs = -1; // when (run time); -1: driven by probability instead
        double probability = 0; // chance per second of run time (per process) when atMs < 0
        int process = -1; // -1: a random process (for probabilistic faults) or all
        int server = 0;
        bool replica = false; // server faults: hit the replica of `server` instead of the master
        double durationMs = 0; // pause length, server pause length
        double delayMs = 0; // network delay per command
        Where where = Where::BeforeSend;
        double skewMs = 0; // clock-skew: offset of the process's validity clock
        double rate = 1.0; // clock-skew: how fast the process's clock runs (1 = true time)
        double restartDelayMs = 0; // server-restart: stay down this long (overrides servers.restart_delay_ms)
        QList<int> servers; // delay, partition: only commands to these servers (empty: all)
        Direction direction = Direction::Both;
        // get-del-delay: only the first release after at_ms stalls (the explorer's pause between two commands
        // of one release); false: every release from then on.
        bool once = false;
    };

    struct Step
    {
        enum class Action {
            Acquire,
            Release,
            Work, // stay inside the critical section for `ms`
            Read,
            Write,
            Pause, // the actor's whole process stops for `ms` (threads and watchdog)
            Crash,
            Delay, // the actor's network gets `ms` of delay per command from now on
            ServerRestart,
            ServerPause,
            ServerKill,
            Failover,
            Note, // a narrative marker only
            Partition, // the actor's process is cut off from every server for `ms` (story F9)
            Restart, // the actor's (external) process starts again
        };
        double atMs = 0;
        QString actor; // an actor name, or empty for server actions
        Action action = Action::Note;
        double ms = 0;
        int server = 0;
        bool replica = false; // server actions: the replica of `server`
        QString note; // the narrative sentence shown while this step runs
    };

    struct Story
    {
        QStringList actors; // each actor is a worker in a process of its own
        QList<Step> steps;
    };

    // One run of a comparison: the scenario with `overrides` merged in (ScenarioParser::variant()).
    struct Variant
    {
        QString name;
        QJsonObject overrides;
    };

    int version = 1;
    QString id;
    QString title;
    QString summary;
    QString teaching;
    Kind kind = Kind::Workload;
    Servers servers;
    Algorithm algorithm;
    Client client;
    Workload workload;
    Resource resource;
    QList<Fault> faults;
    Story story;
    QList<Expectation> expect;
    QList<Variant> variants; // when set, the scenario runs once per variant and expectations name them

    QStringList variantNames() const
    {
        QStringList names;
        for (const Variant &v : variants)
            names << v.name;
        return names;
    }

    int workerCount() const
    {
        return kind == Kind::Story ? int(story.actors.size())
                                   : workload.processes * workload.threadsPerProcess;
    }
    int processCount() const { return kind == Kind::Story ? int(story.actors.size()) : workload.processes; }
    // Worker processes reach the servers through LockScope's proxies.
    bool usesProxy() const { return servers.proxy || client.isSet(); }
    int lockCount() const { return kind == Kind::Story ? 1 : workload.locks; }
};
