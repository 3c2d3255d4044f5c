// ScheduleShrinker: passes over one failing schedule, each keeping only what fails twice.
#include "scheduleshrinker.h"

#include <algorithm>

ScheduleShrinker::ScheduleShrinker(ScheduleRunner &runner, ScheduleVerdict::Property property, quint64 seed)
    : m_runner(runner)
    , m_property(property)
    , m_seed(seed)
{
}

std::optional<qsizetype> ScheduleShrinker::firstFailing(const QList<FaultSchedule> &candidates,
                                                        ScheduleVerdict *failing, QList<bool> *bothPassed)
{
    if (candidates.isEmpty() || (m_cancelled && m_cancelled()))
        return std::nullopt;
    QList<ScheduleRunner::Job> jobs;
    for (const FaultSchedule &c : candidates) {
        jobs << ScheduleRunner::Job {c, m_seed + quint64(m_result.runs) + quint64(jobs.size())};
        jobs << ScheduleRunner::Job {c, m_seed + quint64(m_result.runs) + quint64(jobs.size())};
    }
    m_result.candidates += int(candidates.size());
    m_result.runs += int(jobs.size());
    const QList<ScheduleVerdict> verdicts = m_runner.run(jobs, m_cancelled);
    std::optional<qsizetype> first;
    if (bothPassed)
        bothPassed->clear();
    for (qsizetype i = 0; i < candidates.size(); ++i) {
        const ScheduleVerdict &a = verdicts.at(2 * i);
        const ScheduleVerdict &b = verdicts.at(2 * i + 1);
        if (bothPassed)
            bothPassed->append(a.ran && b.ran && !a.violates(m_property) && !b.violates(m_property));
        if (!first && a.violates(m_property) && b.violates(m_property)) {
            first = i;
            *failing = a;
        }
    }
    return first;
}

ScheduleShrinker::Result ScheduleShrinker::shrink(const ScheduleVerdict &failing, const std::function<bool()> &cancelled)
{
    m_cancelled = cancelled;
    m_result = Result();
    m_result.minimal = failing.schedule;
    m_result.failing = failing;
    FaultSchedule &cur = m_result.minimal;
    ScheduleVerdict found;

    // 1. Fewer faults: drop one at a time while the rest still fail.
    for (bool progress = true; progress && cur.faults.size() > 1;) {
        progress = false;
        QList<FaultSchedule> candidates;
        for (qsizetype i = 0; i < cur.faults.size(); ++i) {
            FaultSchedule c = cur;
            c.faults.removeAt(i);
            candidates << c;
        }
        if (const auto i = firstFailing(candidates, &found)) {
            cur = candidates.at(*i);
            m_result.path << cur;
            m_result.failing = found;
            progress = true;
        }
    }
    // 2. Fewer workers: drop the last one while no fault aims at it (a lock needs two to contend).
    while (cur.workers > 2) {
        const int last = cur.workers - 1;
        if (std::any_of(cur.faults.begin(), cur.faults.end(),
                        [last](const ScheduledFault &f) { return !f.hitsServer() && f.target == last; }))
            break;
        FaultSchedule c = cur;
        c.workers = last;
        if (!firstFailing({c}, &found))
            break;
        cur = c;
        m_result.path << cur;
        m_result.failing = found;
    }
    // 3. Shorter lengths, to the boundary: bisect each length between 0 and what fails, three points a round.
    for (qsizetype i = 0; i < cur.faults.size(); ++i) {
        const ScheduledFault f = cur.faults.at(i); // a copy: cur changes below
        // A failover's length is how far the replica lagged: a shorter lag only narrows the window in which a
        // lock is lost, it tells nothing about the lock, so it is left as found.
        if (!f.hasLength() || f.type == ScheduledFault::Type::ClockJump || f.type == ScheduledFault::Type::Failover
            || f.durationMs <= 0)
            continue;
        double fails = f.durationMs;
        double passes = -1;
        const double resolution = std::max(2.0, m_runner.target().leaseMs() * 0.02);
        for (int round = 0; round < 4 && fails - std::max(0.0, passes) > resolution; ++round) {
            const double low = std::max(0.0, passes);
            QList<FaultSchedule> candidates;
            QList<double> lengths;
            for (int k = 1; k <= 3; ++k) {
                const double length = low + (fails - low) * k / 4.0;
                FaultSchedule c = cur;
                c.faults[i].durationMs = std::round(length * 10) / 10;
                candidates << c;
                lengths << c.faults[i].durationMs;
            }
            QList<bool> passed;
            const auto hit = firstFailing(candidates, &found, &passed);
            if (hit) {
                fails = lengths.at(*hit);
                cur = candidates.at(*hit);
                m_result.path << cur;
                m_result.failing = found;
            }
            // The longest length below the shortest failing one at which both runs passed.
            for (qsizetype k = 0; k < lengths.size(); ++k) {
                if (passed.value(k) && lengths.at(k) < fails)
                    passes = std::max(passes, lengths.at(k));
            }
            if (!hit && passes < 0)
                break; // nothing shorter failed or passed cleanly: keep what we have
        }
        if (m_result.boundaryFault < 0 && (f.type == ScheduledFault::Type::Pause || f.type == ScheduledFault::Type::Delay
                                           || f.type == ScheduledFault::Type::Cut)) {
            m_result.boundaryFault = int(i);
            m_result.failsAtMs = fails;
            m_result.passedAtMs = passes;
        }
    }
    // 4. Earlier times: move each fault towards the start while it still fails.
    for (qsizetype i = 0; i < cur.faults.size(); ++i) {
        const double at = cur.faults.at(i).atMs;
        // A server fault keeps the time the search aimed it at (right after an acquire): moved earlier it
        // strikes before the lock it is meant to lose was taken, and then breaks it only by luck.
        if (at <= 1 || cur.faults.at(i).type == ScheduledFault::Type::ClockJump || cur.faults.at(i).hitsServer())
            continue;
        QList<FaultSchedule> candidates;
        for (double factor : {0.0, 0.5, 0.9}) {
            FaultSchedule c = cur;
            c.faults[i].atMs = std::round(at * factor * 10) / 10;
            candidates << c;
        }
        if (const auto hit = firstFailing(candidates, &found)) {
            cur = candidates.at(*hit);
            m_result.path << cur;
            m_result.failing = found;
        }
    }
    cur.origin = QStringLiteral("shrunk");
    m_result.failing.schedule = cur;
    return m_result;
}
