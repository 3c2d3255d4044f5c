// StoriesAgainstLock: each story is an ordinary Simulation of the story's scenario with its algorithm
// replaced; the explorer's own reading of a run (ScheduleVerdict) says which property broke.
#include "storiesagainstlock.h"

#include "scheduleverdict.h"

#include "locks/customlockscripts.h"
#include "locks/lockcatalog.h"
#include "sim/presetlibrary.h"
#include "sim/simulation.h"

QStringList StoriesAgainstLock::storyIds()
{
    QStringList ids;
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        if (p.id.startsWith(QLatin1String("seed-")) && p.scenario.kind == Scenario::Kind::Story && p.scenario.variants.isEmpty())
            ids << p.id;
    }
    return ids;
}

Scenario StoriesAgainstLock::withLock(const Scenario &story, const std::shared_ptr<const CustomLockScripts> &lua,
                                      QString *why)
{
    // The faults that strike between two commands of the story's own lock: a lock of one script per step has
    // no such point, so the story's flaw cannot be told with it.
    for (const Scenario::Fault &f : story.faults) {
        if (f.type == Scenario::Fault::Type::CrashAfterSetnx || f.type == Scenario::Fault::Type::GetDelDelay) {
            *why = QStringLiteral("its fault strikes between two commands of its own lock (%1), and each step of "
                                  "yours is one script")
                       .arg(f.type == Scenario::Fault::Type::CrashAfterSetnx ? QStringLiteral("SETNX, then EXPIRE")
                                                                             : QStringLiteral("GET, then DEL"));
            return {};
        }
    }
    if (story.algorithm.watchdog && !lua->renew()) {
        *why = QStringLiteral("it renews the lease with a watchdog, and your lock has no renew.lua");
        return {};
    }
    Scenario s = story;
    const int lease = story.algorithm.leaseMs;
    const bool watchdog = story.algorithm.watchdog;
    const int period = story.algorithm.watchdogPeriodMs;
    const Scenario::Retry retry = story.algorithm.retry;
    const int timeout = story.algorithm.acquireTimeoutMs;
    s.algorithm = Scenario::Algorithm();
    s.algorithm.id = LockCatalog::customLuaId();
    s.algorithm.lua = lua;
    s.algorithm.leaseMs = lease;
    s.algorithm.watchdog = watchdog;
    s.algorithm.watchdogPeriodMs = period;
    s.algorithm.retry = retry;
    s.algorithm.acquireTimeoutMs = timeout;
    s.algorithm.fencing = lua->fencing();
    s.resource.fencedStore = lua->fencing();
    s.expect.clear(); // the story's expectations were written for its own lock
    return s;
}

QList<StoriesAgainstLock::Row> StoriesAgainstLock::run(const std::shared_ptr<const CustomLockScripts> &lua,
                                                       const std::function<void(const Row &, int, int)> &progress,
                                                       const std::function<bool()> &cancelled)
{
    QList<Row> rows;
    const QStringList ids = storyIds();
    for (const QString &id : ids) {
        const PresetLibrary::Preset *p = PresetLibrary::find(id);
        Row row;
        row.storyId = id;
        row.title = p->scenario.title;
        if (cancelled && cancelled()) {
            row.note = QStringLiteral("not run: stopped");
        } else {
            QString why;
            const Scenario s = withLock(p->scenario, lua, &why);
            if (s.id.isEmpty()) {
                row.note = QStringLiteral("not run: ") + why;
            } else {
                Simulation::Options o;
                o.historyCapacityPerLog = qsizetype(1) << 16;
                Simulation sim(s, o);
                sim.start();
                while (!sim.waitFinished(100)) {
                    if (cancelled && cancelled())
                        sim.requestStop();
                }
                const ScheduleVerdict v = ScheduleVerdict::fromRun(sim, FaultSchedule(), 1);
                if (!v.ran) {
                    row.note = QStringLiteral("the run failed: ") + v.error;
                } else {
                    row.ran = true;
                    if (const auto worst = v.worstOf(ScheduleVerdict::allProperties())) {
                        row.broken = true;
                        row.property = ScheduleVerdict::propertyName(*worst);
                        row.verdict = v.sentence;
                    } else {
                        row.verdict = v.fencingRejections > 0
                            ? QStringLiteral("nothing broke in this run: the fenced store refused %1 stale write(s)")
                                  .arg(v.fencingRejections)
                            : QStringLiteral("nothing broke in this run");
                    }
                    if (v.unknownOutcomes > 0)
                        row.note = QStringLiteral("%1 operation(s) of unknown outcome, never counted").arg(v.unknownOutcomes);
                }
            }
        }
        rows << row;
        if (progress)
            progress(row, int(rows.size()), int(ids.size()));
    }
    return rows;
}
