// ScheduleVerdict: a finished run's report and history, read as the explorer's properties.
#include "scheduleverdict.h"

#include "sim/simulation.h"

#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace {

const QStringList &propertyNames()
{
    static const QStringList names {QStringLiteral("lost-update"), QStringLiteral("overlap"),
                                    QStringLiteral("foreign-release"), QStringLiteral("stuck-lock")};
    return names;
}

double ms(qint64 us)
{
    return double(us) / 1000.0;
}

QString seconds(qint64 us)
{
    return QString::number(double(us) / 1e6, 'f', 3) + QStringLiteral(" s");
}

QString firstDetail(const SafetyChecker::Result &safety, Violation::Type type)
{
    for (const Violation &v : safety.details) {
        if (v.type == type)
            return v.text;
    }
    return QString();
}

} // namespace

QString ScheduleVerdict::propertyName(Property p)
{
    return propertyNames().value(int(p));
}

bool ScheduleVerdict::propertyFromName(const QString &name, Property *p)
{
    const qsizetype i = propertyNames().indexOf(name);
    if (i < 0)
        return false;
    *p = Property(i);
    return true;
}

QList<ScheduleVerdict::Property> ScheduleVerdict::allProperties()
{
    return {Property::LostUpdate, Property::Overlap, Property::ForeignRelease, Property::StuckLock};
}

std::optional<ScheduleVerdict::Property> ScheduleVerdict::worstOf(const QList<Property> &wanted) const
{
    for (Property p : violated) { // most harmful first
        if (wanted.contains(p))
            return p;
    }
    return std::nullopt;
}

ScheduleVerdict ScheduleVerdict::fromRun(const Simulation &run, const FaultSchedule &schedule, quint64 seed)
{
    ScheduleVerdict v;
    v.schedule = schedule;
    v.seed = seed;
    if (run.state() != Simulation::State::Finished) {
        v.error = run.errorString();
        return v;
    }
    v.report = run.report();
    const RunReport &r = v.report;
    if (!r.failure().isEmpty()) {
        // The servers were lost or refused the run for good: no evidence either way.
        v.error = r.failure();
        return v;
    }
    v.ran = true;
    v.workerNames = run.workerNames();
    v.fencingRejections = r.safety.fencingRejections;
    v.unknownOutcomes = r.unknownOutcomes;
    const SafetyChecker::Result &s = r.safety;
    // The counter lives on server 0: a restart or failover there loses it whatever the lock does, so a lost
    // update on such a schedule is no evidence against the lock.
    const bool counterServerHit = std::any_of(schedule.faults.begin(), schedule.faults.end(),
                                              [](const ScheduledFault &f) { return f.hitsServer() && f.target == 0; });
    if (s.lostUpdates > 0 && !counterServerHit) {
        v.violated << Property::LostUpdate;
        v.sentence = firstDetail(s, Violation::Type::LostUpdate);
        if (v.sentence.isEmpty())
            v.sentence = QStringLiteral("the counter ended at %1 where the writes that were applied make %2: "
                                        "%3 update(s) lost")
                             .arg(s.counterActual)
                             .arg(s.counterExpected)
                             .arg(s.lostUpdates);
    }
    if (s.overlaps > 0) {
        v.violated << Property::Overlap;
        if (v.sentence.isEmpty())
            v.sentence = firstDetail(s, Violation::Type::Overlap);
    }
    if (s.foreignReleases > 0) {
        v.violated << Property::ForeignRelease;
        if (v.sentence.isEmpty())
            v.sentence = firstDetail(s, Violation::Type::ForeignRelease);
    }
    if (r.locksWithoutTtl > 0) {
        v.violated << Property::StuckLock;
        if (v.sentence.isEmpty())
            v.sentence = QStringLiteral("the lock %1 was left with no TTL when the run ended: nobody holds "
                                        "it and it never expires")
                             .arg(r.stuckKeys.isEmpty() ? run.lockNames().value(0) : r.stuckKeys.first());
    }

    // The holds, in time order, and the closest call between two of them.
    const QList<HistoryEvent> events = run.history() ? run.history()->events() : QList<HistoryEvent>();
    QHash<int, int> openHold; // worker → index in holds
    QHash<quint64, qint64> invokes; // (log, op) → invoke time
    int inside = 0;
    int lastLeaver = -1;
    qint64 lastExitUs = -1;
    qint64 bestGapUs = -1;
    for (const HistoryEvent &e : events) {
        const quint64 op = (quint64(e.log) << 48) ^ quint64(e.opId);
        v.endMs = std::max(v.endMs, ms(e.timeUs));
        if (e.phase == HistoryEvent::Phase::Invoke) {
            invokes.insert(op, e.timeUs);
            if (e.kind == HistoryEvent::Kind::Release && openHold.contains(e.worker))
                v.holds[openHold.value(e.worker)].releaseInvokeMs = ms(e.timeUs);
            continue;
        }
        switch (e.kind) {
        case HistoryEvent::Kind::Acquire:
            if (e.phase == HistoryEvent::Phase::Ok && !openHold.contains(e.worker)) {
                Hold h;
                h.worker = e.worker;
                h.acquireInvokeMs = ms(invokes.value(op, e.timeUs));
                h.acquiredMs = ms(e.timeUs);
                openHold.insert(e.worker, int(v.holds.size()));
                v.holds << h;
            }
            break;
        case HistoryEvent::Kind::Renew:
            if (e.phase == HistoryEvent::Phase::Ok && openHold.contains(e.worker))
                v.holds[openHold.value(e.worker)].renewalsMs << ms(invokes.value(op, e.timeUs));
            break;
        case HistoryEvent::Kind::Enter:
            if (openHold.contains(e.worker))
                v.holds[openHold.value(e.worker)].enterMs = ms(e.timeUs);
            if (inside == 0 && lastLeaver >= 0 && lastLeaver != e.worker) {
                const qint64 gap = e.timeUs - lastExitUs;
                if (bestGapUs < 0 || gap < bestGapUs) {
                    bestGapUs = gap;
                    v.closestText = QStringLiteral("%1 entered the critical section %2 ms after %3 left it "
                                                   "(at %4); they were never inside together")
                                        .arg(v.workerNames.value(e.worker))
                                        .arg(double(gap) / 1000.0, 0, 'f', 1)
                                        .arg(v.workerNames.value(lastLeaver), seconds(lastExitUs));
                }
            }
            ++inside;
            break;
        case HistoryEvent::Kind::Exit:
            if (openHold.contains(e.worker))
                v.holds[openHold.value(e.worker)].exitMs = ms(e.timeUs);
            inside = std::max(0, inside - 1);
            lastLeaver = e.worker;
            lastExitUs = e.timeUs;
            break;
        case HistoryEvent::Kind::Release:
            openHold.remove(e.worker);
            break;
        case HistoryEvent::Kind::Fault:
            if (HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::Crash) {
                for (auto it = openHold.begin(); it != openHold.end();) {
                    if (v.report.clients.isEmpty() ? run.workerProcesses().value(it.key()) == e.process
                                                   : it.key() == e.process) {
                        if (v.holds[it.value()].enterMs >= 0 && v.holds[it.value()].exitMs < 0) {
                            inside = std::max(0, inside - 1); // a crashed holder leaves the section
                            lastLeaver = it.key();
                            lastExitUs = e.timeUs;
                        }
                        it = openHold.erase(it);
                    } else {
                        ++it;
                    }
                }
            }
            break;
        default:
            break;
        }
    }
    if (bestGapUs >= 0)
        v.closestMarginMs = double(bestGapUs) / 1000.0;
    if (!v.violated.isEmpty())
        v.events = events;
    return v;
}

QString ScheduleVerdict::inActorsWords(QString text) const
{
    const QStringList actors = FaultSchedule::actorNames(schedule.workers);
    for (int w = 0; w < workerNames.size() && w < actors.size(); ++w)
        text.replace(workerNames.at(w), actors.at(w));
    static const QRegularExpression runPrefix(QStringLiteral("lockscope:explore:[0-9]+:[0-9a-z]+:"));
    text.replace(runPrefix, QStringLiteral("lockscope:sim:"));
    return text;
}
