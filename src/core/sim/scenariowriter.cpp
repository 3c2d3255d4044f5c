// ScenarioWriter: one JSON object per section, in the parser's words.
#include "scenariowriter.h"

#include "scenarionames.h"
#include "scenarioparser.h"

#include "locks/customlockscripts.h"

#include <QJsonArray>

using namespace ScenarioNames;

QJsonObject ScenarioWriter::toJson(const Scenario &s)
{
    QJsonObject servers {{QStringLiteral("mode"), kServerModes.at(int(s.servers.mode))},
                         {QStringLiteral("count"), s.servers.count},
                         {QStringLiteral("replicas"), s.servers.replicas},
                         {QStringLiteral("keyspace_events"), s.servers.keyspaceEvents},
                         {QStringLiteral("cluster"), s.servers.cluster},
                         {QStringLiteral("sentinel"), s.servers.sentinel},
                         {QStringLiteral("restart_delay_ms"), s.servers.restartDelayMs},
                         {QStringLiteral("proxy"), s.servers.proxy}};
    QJsonObject retry {{QStringLiteral("strategy"), kStrategies.at(int(s.algorithm.retry.strategy))},
                       {QStringLiteral("interval_ms"), s.algorithm.retry.intervalMs},
                       {QStringLiteral("jitter_ms"), s.algorithm.retry.jitterMs},
                       {QStringLiteral("max_ms"), s.algorithm.retry.maxMs}};
    if (s.algorithm.retry.channels != Scenario::Retry::Channels::Auto)
        retry.insert(QStringLiteral("pubsub"), kPubSubChannels.at(int(s.algorithm.retry.channels)));
    QJsonObject algorithm {{QStringLiteral("id"), s.algorithm.id},
                           {QStringLiteral("lease_ms"), s.algorithm.leaseMs},
                           {QStringLiteral("watchdog"), s.algorithm.watchdog},
                           {QStringLiteral("watchdog_period_ms"), s.algorithm.watchdogPeriodMs},
                           {QStringLiteral("retry"), retry},
                           {QStringLiteral("acquire_timeout_ms"), s.algorithm.acquireTimeoutMs},
                           {QStringLiteral("reentrancy"), s.algorithm.reentrancy},
                           {QStringLiteral("pool_size"), s.algorithm.poolSize},
                           {QStringLiteral("clock"), kClocks.at(int(s.algorithm.clock))},
                           {QStringLiteral("fencing"), s.algorithm.fencing}};
    if (s.algorithm.lua)
        algorithm.insert(QStringLiteral("lua"), s.algorithm.lua->toJson()); // a story keeps its lock with it
    const Scenario::CriticalSection &cs = s.workload.criticalSection;
    QJsonObject critical {{QStringLiteral("distribution"), kDistributions.at(int(cs.distribution))},
                          {QStringLiteral("ms"), cs.ms},
                          {QStringLiteral("min_ms"), cs.minMs},
                          {QStringLiteral("max_ms"), cs.maxMs},
                          {QStringLiteral("mean_ms"), cs.meanMs}};
    QJsonObject workload {{QStringLiteral("processes"), s.workload.processes},
                          {QStringLiteral("threads_per_process"), s.workload.threadsPerProcess},
                          {QStringLiteral("locks"), s.workload.locks},
                          {QStringLiteral("lock_choice"), kLockChoices.at(int(s.workload.lockChoice))},
                          {QStringLiteral("engine"), kEngines.at(int(s.workload.engine))},
                          {QStringLiteral("key_prefix"), s.workload.keyPrefix},
                          {QStringLiteral("duration_s"), s.workload.durationS},
                          {QStringLiteral("operations"), double(s.workload.operations)},
                          {QStringLiteral("critical_section"), critical},
                          {QStringLiteral("think_ms"), s.workload.thinkMs},
                          {QStringLiteral("start_stagger_ms"), s.workload.startStaggerMs},
                          {QStringLiteral("seed"), double(s.workload.seed)}};
    QJsonObject resource {{QStringLiteral("counter"), s.resource.counter},
                          {QStringLiteral("counter_initial"), double(s.resource.counterInitial)},
                          {QStringLiteral("fenced_store"), s.resource.fencedStore}};
    QJsonArray faults;
    for (const Scenario::Fault &f : s.faults) {
        QJsonObject o {{QStringLiteral("type"), kFaultTypes.at(int(f.type))}};
        if (f.atMs >= 0)
            o.insert(QStringLiteral("at_ms"), f.atMs);
        if (f.probability > 0)
            o.insert(QStringLiteral("probability"), f.probability);
        if (f.process >= 0)
            o.insert(QStringLiteral("process"), f.process);
        if (f.server > 0)
            o.insert(QStringLiteral("server"), f.server);
        if (f.replica)
            o.insert(QStringLiteral("replica"), true);
        if (f.durationMs > 0)
            o.insert(QStringLiteral("duration_ms"), f.durationMs);
        if (f.delayMs > 0) {
            o.insert(QStringLiteral("delay_ms"), f.delayMs);
            o.insert(QStringLiteral("where"), kWhere.at(int(f.where)));
        }
        if (f.skewMs != 0)
            o.insert(QStringLiteral("skew_ms"), f.skewMs);
        if (f.rate != 1.0)
            o.insert(QStringLiteral("rate"), f.rate);
        if (f.restartDelayMs > 0)
            o.insert(QStringLiteral("restart_delay_ms"), f.restartDelayMs);
        if (f.once)
            o.insert(QStringLiteral("once"), true);
        if (f.direction != Scenario::Fault::Direction::Both)
            o.insert(QStringLiteral("direction"), kDirections.at(int(f.direction)));
        if (!f.servers.isEmpty()) {
            QJsonArray list;
            for (int server : f.servers)
                list.append(server);
            o.insert(QStringLiteral("servers"), list);
        }
        faults.append(o);
    }
    QJsonObject result {{QStringLiteral("lockscope_scenario"), ScenarioParser::kFormatVersion},
                        {QStringLiteral("id"), s.id},
                        {QStringLiteral("title"), s.title},
                        {QStringLiteral("kind"), kKinds.at(int(s.kind))},
                        {QStringLiteral("servers"), servers},
                        {QStringLiteral("algorithm"), algorithm},
                        {QStringLiteral("workload"), workload},
                        {QStringLiteral("resource"), resource},
                        {QStringLiteral("faults"), faults}};
    if (s.client.isSet()) {
        QJsonObject client {{QStringLiteral("reply_timeout_ms"), s.client.replyTimeoutMs},
                            {QStringLiteral("hello_timeout_ms"), s.client.helloTimeoutMs}};
        if (!s.client.adapter.isEmpty())
            client.insert(QStringLiteral("adapter"), s.client.adapter);
        else
            client.insert(QStringLiteral("command"), QJsonArray::fromStringList(s.client.command));
        if (!s.client.options.isEmpty())
            client.insert(QStringLiteral("options"), s.client.options);
        result.insert(QStringLiteral("client"), client);
    }
    if (!s.summary.isEmpty())
        result.insert(QStringLiteral("summary"), s.summary);
    if (!s.teaching.isEmpty())
        result.insert(QStringLiteral("teaching"), s.teaching);
    if (s.kind == Scenario::Kind::Story) {
        QJsonArray steps;
        for (const Scenario::Step &st : s.story.steps) {
            QJsonObject o {{QStringLiteral("at_ms"), st.atMs},
                           {QStringLiteral("action"), kActions.at(int(st.action))}};
            if (!st.actor.isEmpty())
                o.insert(QStringLiteral("actor"), st.actor);
            if (st.ms > 0)
                o.insert(QStringLiteral("ms"), st.ms);
            if (st.server > 0)
                o.insert(QStringLiteral("server"), st.server);
            if (st.replica)
                o.insert(QStringLiteral("replica"), true);
            if (!st.note.isEmpty())
                o.insert(QStringLiteral("note"), st.note);
            steps.append(o);
        }
        result.insert(QStringLiteral("story"),
                      QJsonObject {{QStringLiteral("actors"), QJsonArray::fromStringList(s.story.actors)},
                                   {QStringLiteral("steps"), steps}});
    }
    QJsonArray expect;
    for (const Expectation &e : s.expect)
        expect.append(e.toString());
    result.insert(QStringLiteral("expect"), expect);
    if (!s.variants.isEmpty()) {
        QJsonArray variants;
        for (const Scenario::Variant &v : s.variants) {
            QJsonObject o = v.overrides;
            o.insert(QStringLiteral("name"), v.name);
            variants.append(o);
        }
        result.insert(QStringLiteral("variants"), variants);
    }
    return result;
}
