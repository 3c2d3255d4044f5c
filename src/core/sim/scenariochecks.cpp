// ScenarioChecks: the checks ScenarioParser runs once every section is read.
#include "scenariochecks.h"

#include "scenarionames.h"

using namespace ScenarioNames;

// What a scenario asks that its workers cannot do: external clients run one worker per process and cannot
// be made to show LockScope's own implementation flaws; built-in workers cannot restart a process.
QStringList ScenarioChecks::client(const Scenario &s)
{
    QStringList problems;
    using T = Scenario::Fault::Type;
    if (s.servers.proxy && (s.servers.cluster || s.servers.sentinel))
        problems << QStringLiteral(
            "servers.proxy: a cluster or a Sentinel group tells its clients the servers' own "
            "addresses, which would bypass the proxy; use independent sandbox servers");
    if (!s.client.isSet()) {
        for (qsizetype i = 0; i < s.faults.size(); ++i) {
            if (s.faults.at(i).type == T::Restart)
                problems << QStringLiteral("faults[%1]: restart starts an external client's process again; "
                                           "built-in workers run inside LockScope (use a client)")
                                .arg(i);
            if (s.faults.at(i).type == T::DropConnections && !s.servers.proxy)
                problems << QStringLiteral("faults[%1]: drop-connections closes the proxy's connections; set "
                                           "servers.proxy to true (or use a client)")
                                .arg(i);
            if (s.faults.at(i).type == T::Partition
                && s.faults.at(i).direction != Scenario::Fault::Direction::Both && !s.servers.proxy)
                problems << QStringLiteral("faults[%1].direction: a one-way partition needs the proxy; set "
                                           "servers.proxy to true (or use a client)")
                                .arg(i);
        }
        for (qsizetype i = 0; i < s.story.steps.size(); ++i) {
            if (s.story.steps.at(i).action == Scenario::Step::Action::Restart)
                problems
                    << QStringLiteral("story.steps[%1]: restart is for external clients' processes").arg(i);
        }
        return problems;
    }
    if (s.kind == Scenario::Kind::Workload && s.workload.threadsPerProcess != 1)
        problems << QStringLiteral(
            "workload.threads_per_process: an external client runs one worker per process; "
            "set it to 1 and count workers with workload.processes");
    if (s.algorithm.poolSize > 0)
        problems << QStringLiteral(
            "algorithm.pool_size: an external client keeps its own connections; leave it at 0");
    if (s.servers.cluster || s.servers.sentinel)
        problems << QStringLiteral(
            "servers: external clients run on independent sandbox servers or a server you "
            "give, not on a sandbox cluster or Sentinel group");
    if (s.resource.fencedStore)
        problems << QStringLiteral(
            "resource.fenced_store: the fenced store is LockScope's own; an external client "
            "writes the counter with a plain SET");
    for (qsizetype i = 0; i < s.faults.size(); ++i) {
        const T t = s.faults.at(i).type;
        if (t == T::ClockSkew || t == T::CrashAfterSetnx || t == T::GetDelDelay || t == T::DropNotifications)
            problems << QStringLiteral(
                            "faults[%1]: %2 is a flaw injected into LockScope's own lock code; a real "
                            "library's process can be paused, crashed, restarted, delayed or cut off")
                            .arg(i)
                            .arg(kFaultTypes.at(int(t)));
    }
    return problems;
}

// What one section cannot check alone: fault and step numbers against the servers and processes, and
// what the servers, the algorithm and the client ask of one another.
void ScenarioChecks::acrossSections(const Scenario &s, QStringList *errors)
{
    for (qsizetype i = 0; i < s.faults.size(); ++i) {
        const Scenario::Fault &f = s.faults.at(i);
        if (f.process >= s.processCount())
            errors->append(
                QStringLiteral("faults[%1].process: %2 does not exist; processes are numbered 0 to %3")
                    .arg(i)
                    .arg(f.process)
                    .arg(s.processCount() - 1));
        for (int server : f.servers) {
            if (server >= s.servers.count)
                errors->append(
                    QStringLiteral("faults[%1].servers: %2 does not exist; servers are numbered 0 to %3")
                        .arg(i)
                        .arg(server)
                        .arg(s.servers.count - 1));
        }
        if (f.server >= s.servers.count)
            errors->append(
                QStringLiteral("faults[%1].server: %2 does not exist; servers are numbered 0 to %3")
                    .arg(i)
                    .arg(f.server)
                    .arg(s.servers.count - 1));
        if (f.type == Scenario::Fault::Type::Failover && s.servers.replicas < 1)
            errors->append(
                QStringLiteral("faults[%1]: a failover needs servers.replicas of at least 1").arg(i));
        if (s.servers.mode == Scenario::Servers::Mode::Given
            && (f.type == Scenario::Fault::Type::ServerRestart || f.type == Scenario::Fault::Type::ServerPause
                || f.type == Scenario::Fault::Type::ServerKill || f.type == Scenario::Fault::Type::Failover))
            errors->append(
                QStringLiteral("faults[%1]: server faults need sandbox servers (servers.mode \"sandbox\"), "
                               "never a server you gave")
                    .arg(i));
    }
    for (qsizetype i = 0; i < s.story.steps.size(); ++i) {
        const Scenario::Step &st = s.story.steps.at(i);
        if (st.server >= s.servers.count)
            errors->append(
                QStringLiteral("story.steps[%1].server: %2 does not exist; servers are numbered 0 to %3")
                    .arg(i)
                    .arg(st.server)
                    .arg(s.servers.count - 1));
        if (st.action == Scenario::Step::Action::Failover && s.servers.replicas < 1)
            errors->append(
                QStringLiteral("story.steps[%1]: a failover needs servers.replicas of at least 1").arg(i));
    }
    if (s.algorithm.id == QLatin1String("redlock") && s.servers.count < 1)
        errors->append(QStringLiteral("servers.count: redlock needs at least one server"));
    if (s.servers.cluster) {
        if (s.servers.mode == Scenario::Servers::Mode::Given)
            errors->append(QStringLiteral(
                "servers.cluster: starts a sandbox cluster, so it goes with mode \"sandbox\"; a cluster of "
                "yours is given by the connection (lockscope-cli simulate --cluster HOST:PORT)"));
        if (s.servers.count > 1)
            errors->append(QStringLiteral("servers.count: counts independent servers (for Redlock); a "
                                          "sandbox cluster (servers.cluster) "
                                          "always has 3 masters, so leave count at 1"));
        if (s.servers.replicas > 0)
            errors->append(QStringLiteral("servers.replicas: failover stories run on independent sandbox "
                                          "servers; a sandbox cluster has no replicas here"));
        errors->append(cluster(s));
    }
    if (s.servers.sentinel) {
        if (s.servers.mode == Scenario::Servers::Mode::Given)
            errors->append(QStringLiteral(
                "servers.sentinel: starts a sandbox Sentinel group, so it goes with mode \"sandbox\"; a "
                "group of yours is given by the connection (lockscope-cli simulate --sentinel HOST:PORT "
                "--master NAME)"));
        if (s.servers.count > 1 || s.servers.cluster)
            errors->append(QStringLiteral("servers.sentinel: a Sentinel group has one master; leave "
                                          "servers.count at 1 and servers.cluster off"));
        if (s.servers.replicas < 1)
            errors->append(QStringLiteral("servers.sentinel: the sentinels need a replica to promote; set "
                                          "servers.replicas to 1 or 2"));
    }
    errors->append(client(s));
    if (s.resource.fencedStore && !s.algorithm.fencing)
        errors->append(
            QStringLiteral("resource.fenced_store: needs a fencing token; set algorithm.fencing to true "
                           "(or use the \"fenced\" algorithm)"));
}

QStringList ScenarioChecks::cluster(const Scenario &s)
{
    QStringList problems;
    if (s.algorithm.id == QLatin1String("redlock"))
        problems << QStringLiteral(
            "algorithm.id: redlock needs independent masters (servers.count), not a Redis Cluster: a cluster "
            "keeps each key on exactly one master, so there is no quorum to gather. Run it on independent "
            "sandbox servers (drop servers.cluster, set servers.count), or pick a single-server algorithm");
    if (s.algorithm.poolSize > 0)
        problems << QStringLiteral("algorithm.pool_size: a shared pool talks to one server; on a cluster "
                                   "each worker routes every lock to its slot's master (leave it at 0)");
    using T = Scenario::Fault::Type;
    for (qsizetype i = 0; i < s.faults.size(); ++i) {
        const T t = s.faults.at(i).type;
        if (t == T::ServerRestart || t == T::ServerPause || t == T::ServerKill || t == T::Failover)
            problems << QStringLiteral("faults[%1]: server faults (restart, pause, kill, failover) are not "
                                       "supported on a cluster; run them on sandbox servers")
                            .arg(i);
    }
    using A = Scenario::Step::Action;
    for (qsizetype i = 0; i < s.story.steps.size(); ++i) {
        const A a = s.story.steps.at(i).action;
        if (a == A::ServerRestart || a == A::ServerPause || a == A::ServerKill || a == A::Failover)
            problems << QStringLiteral("story.steps[%1]: server actions (restart, pause, kill, failover) "
                                       "are not supported on a cluster; run them on sandbox servers")
                            .arg(i);
    }
    return problems;
}
