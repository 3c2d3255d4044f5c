// A fault schedule: the plain value the explorer searches over. A few faults, each with its kind, whom it
// hits, when and for how long, on a workload of `workers` contending workers. The generator makes them, the
// runner turns each into an ordinary scenario, the shrinker makes them smaller, the story writer tells one.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

struct ScheduledFault
{
    enum class Type {
        Pause, // a stop-the-world pause of a process: its threads and its renewer stop
        Crash, // the process is killed (with `point`, between two commands of one acquire)
        Delay, // from `atMs` on, every command of the process waits `durationMs` before it is sent
        Drop, // the process's connections are reset (through the fault proxy)
        Cut, // the process is cut off from every server for `durationMs`
        Restart, // server `target` restarts without persistence (it comes back empty)
        Failover, // server `target`'s replica, which stopped receiving `durationMs` earlier, is promoted
        ClockJump, // the process's clock is off by `durationMs` (where the algorithm reads clocks)
    };
    // Where the fault strikes: at a time, or at the first time after it that the process reaches a point
    // between two commands (a window too short for any clock to hit).
    enum class Point { AtTime, InsideAcquire, InsideRelease };

    Type type = Type::Pause;
    int target = 0; // the process (worker), or the server for Restart and Failover
    double atMs = 0; // run time
    double durationMs = 0; // pause, cut, delay per command, replication lag, clock offset; 0 where none
    Point point = Point::AtTime;

    bool hitsServer() const { return type == Type::Restart || type == Type::Failover; }
    bool hasLength() const
    {
        return type == Type::Pause || type == Type::Delay || type == Type::Cut || type == Type::Failover
            || type == Type::ClockJump;
    }
    static QString typeName(Type type); // "pause", "crash", … as --faults spells them
    static bool typeFromName(const QString &name, Type *type);
    static QStringList allTypeNames();
    static QString pointName(Point point);
    // "A pauses for 620 ms at 0.153 s", with `actors` naming the workers.
    QString describe(const QStringList &actors) const;
    QJsonObject toJson(const QStringList &actors) const;
    bool operator==(const ScheduledFault &o) const
    {
        return type == o.type && target == o.target && atMs == o.atMs && durationMs == o.durationMs
            && point == o.point;
    }
};

struct FaultSchedule
{
    int workers = 3;
    QList<ScheduledFault> faults;
    QString origin; // how it was made: "guided: pause right after B's 1st acquire", "random", "shrunk"

    // A, B, C… (the story's actors and the report's process names).
    static QStringList actorNames(int workers);
    QString describe() const; // the faults, "; "-separated
    QJsonArray faultsJson() const;
    // Schedules are told apart by their faults (not their origin): the shrinker never runs one twice.
    QString key() const;
};
