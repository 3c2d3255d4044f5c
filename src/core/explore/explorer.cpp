// Explorer: profile, search, shrink, confirm, boundary, story.
#include "explorer.h"

#include "schedulerunner.h"
#include "scheduleshrinker.h"
#include "storywriter.h"

#include "locks/customlockscripts.h"
#include "redis/redisconnection.h"
#include "sim/scenarioparser.h"
#include "sim/simulation.h"

#include <QCoreApplication>

#include <QElapsedTimer>

#include <algorithm>

namespace {

QString length(double ms)
{
    return ms >= 1000 ? QString::number(ms / 1000.0, 'f', 2) + QStringLiteral(" s")
                      : QString::number(qRound(ms)) + QStringLiteral(" ms");
}

// "overlaps when A pauses ≥ 520 ms": the property and the fault in words.
QString boundaryText(ScheduleVerdict::Property property, const ScheduledFault &f, const QString &who, double failsAt,
                     double lease)
{
    const QString verb = property == ScheduleVerdict::Property::Overlap ? QStringLiteral("overlaps")
        : property == ScheduleVerdict::Property::LostUpdate           ? QStringLiteral("loses an update")
        : property == ScheduleVerdict::Property::ForeignRelease       ? QStringLiteral("releases another's lock")
                                                                      : QStringLiteral("leaves a stuck lock");
    const QString what = f.type == ScheduledFault::Type::Pause
        ? QStringLiteral("%1 pauses").arg(who)
        : f.type == ScheduledFault::Type::Cut ? QStringLiteral("%1 is cut off").arg(who)
                                              : QStringLiteral("%1's commands are delayed").arg(who);
    return QStringLiteral("%1 when %2 ≥ %3 (lease %4)").arg(verb, what, length(failsAt), length(lease));
}

} // namespace

Explorer::Explorer(const Options &options)
    : m_options(options)
{
}

Explorer::~Explorer() = default;

bool Explorer::prepare(QString *error, bool *badOptions)
{
    if (badOptions)
        *badOptions = true;
    m_target = ExploreTarget::make(m_options.target, error);
    if (!m_target)
        return false;
    if (m_options.faults.isEmpty()) {
        m_options.faults = m_target->faultsItCanMeet();
        if (m_options.server) // a server of the user's cannot be restarted or failed over by us
            m_options.faults.removeIf([](ScheduledFault::Type t) {
                return t == ScheduledFault::Type::Restart || t == ScheduledFault::Type::Failover;
            });
    }
    for (ScheduledFault::Type t : std::as_const(m_options.faults)) {
        if (!m_target->canMeet(t)) {
            *error = QStringLiteral("--faults %1: %2 cannot meet that fault")
                         .arg(ScheduledFault::typeName(t), m_target->name());
            return false;
        }
        if (m_options.server && (t == ScheduledFault::Type::Restart || t == ScheduledFault::Type::Failover)) {
            *error = QStringLiteral("--faults %1 restarts or fails over servers: it runs only on sandboxes, not on "
                                    "a server you give")
                         .arg(ScheduledFault::typeName(t));
            return false;
        }
    }
    // A restart or a failover takes tens of ms and the clients then reconnect: with holds a fifth of the lease
    // the holder is out before anyone else can get in, and the lock's loss is seen only by luck. Holds of half
    // the lease leave the window the flaw needs (the search then runs fewer schedules a minute).
    if (std::any_of(m_options.faults.begin(), m_options.faults.end(), [](ScheduledFault::Type t) {
            return t == ScheduledFault::Type::Restart || t == ScheduledFault::Type::Failover;
        }) && !m_options.target.longHolds) {
        m_options.target.longHolds = true;
        m_target = ExploreTarget::make(m_options.target, error);
        if (!m_target)
            return false;
    }
    if (m_options.server && m_target->needsOwnServers(FaultSchedule())) {
        *error = QStringLiteral("%1 needs servers of its own (several masters or a replica): explore it on the "
                                "sandbox")
                     .arg(m_target->name());
        return false;
    }
    if (m_options.properties.isEmpty())
        m_options.properties = ScheduleVerdict::allProperties();
    if (m_options.shardCount < 1 || m_options.shardIndex < 0 || m_options.shardIndex >= m_options.shardCount) {
        *error = QStringLiteral("--shard %1/%2: give I/N with 0 ≤ I < N").arg(m_options.shardIndex).arg(m_options.shardCount);
        return false;
    }
    if (badOptions)
        *badOptions = false;
    ScheduleRunner::Options ro;
    ro.parallel = m_options.parallel;
    ro.server = m_options.server;
    m_runner = std::make_unique<ScheduleRunner>(*m_target, ro);
    if (!m_runner->start(error))
        return false;
    if (const std::shared_ptr<const CustomLockScripts> &lua = m_target->base().algorithm.lua) {
        // A user's lock is compiled and tried once before the search: a syntax error at its line, or a
        // script that loops, is a bad input (exit 2), not a violation nor a failed run.
        ConnectionSettings settings = m_runner->sharedServer();
        settings.readOnly = false;
        RedisConnection connection(settings);
        if (const RedisError e = connection.open()) {
            *error = QStringLiteral("cannot check your Lua on %1: %2").arg(settings.endpoint(), e.message());
            return false;
        }
        const CustomLockScripts::Problem problem = lua->check(connection);
        if (problem.isSet()) {
            if (badOptions)
                *badOptions = true;
            *error = QStringLiteral("your lock cannot run: %1").arg(problem.text());
            return false;
        }
    }
    return true;
}

QList<ScheduleVerdict> Explorer::runMany(const FaultSchedule &schedule, int count, quint64 seed,
                                         const std::function<bool()> &cancelled)
{
    QList<ScheduleRunner::Job> jobs;
    for (int i = 0; i < count; ++i)
        jobs << ScheduleRunner::Job {schedule, seed + quint64(i)};
    return m_runner->run(jobs, cancelled);
}

int Explorer::replayStory(const Scenario &story, int runs, const std::function<bool()> &cancelled)
{
    int met = 0;
    // The story is replayed as `simulate FILE` would read it: through the parser, so a story the parser
    // refuses is reported here rather than found by the user.
    Scenario parsed;
    QStringList problems;
    if (!ScenarioParser().parse(ScenarioParser::toJson(story), &parsed, &problems)) {
        m_storyProblem = problems.join(QStringLiteral("; "));
        return 0;
    }
    std::vector<std::unique_ptr<Simulation>> sims;
    for (int i = 0; i < runs; ++i) {
        Scenario s = parsed;
        s.workload.keyPrefix = QStringLiteral("lockscope:explore:%1:story%2:").arg(QCoreApplication::applicationPid()).arg(i);
        s.workload.seed = m_options.seed + quint64(i);
        Simulation::Options so;
        const bool ownServers = s.servers.count > 1 || s.servers.replicas > 0;
        if (!ownServers && !m_runner->serverDescription().isEmpty() && m_options.server)
            so.server = m_options.server;
        sims.push_back(std::make_unique<Simulation>(s, so));
        sims.back()->start();
    }
    for (auto &sim : sims) {
        while (!sim->waitFinished(50)) {
            if (cancelled && cancelled())
                sim->requestStop();
        }
        if (sim->state() != Simulation::State::Finished)
            continue;
        RunReport r = sim->report();
        r.evaluate(story.expect);
        if (r.failure().isEmpty() && r.passed())
            ++met;
    }
    return met;
}

ExploreResult Explorer::run(const std::function<void(const Progress &)> &progress, const std::function<bool()> &cancelled)
{
    ExploreResult result;
    const ExploreTarget &target = *m_target;
    result.target = target.name();
    result.leaseMs = target.leaseMs();
    result.workers = target.workers();
    for (ScheduledFault::Type t : std::as_const(m_options.faults))
        result.faultKinds << ScheduledFault::typeName(t);
    for (ScheduleVerdict::Property p : std::as_const(m_options.properties))
        result.properties << ScheduleVerdict::propertyName(p);
    result.mode = m_options.mode == ScheduleGenerator::Mode::Guided ? QStringLiteral("guided") : QStringLiteral("random");
    result.seed = m_options.seed;
    result.shardIndex = m_options.shardIndex;
    result.shardCount = m_options.shardCount;
    result.server = m_runner->serverDescription();

    QElapsedTimer clock;
    clock.start();
    Progress p;
    const auto report = [&](const QString &phase) {
        p.phase = phase;
        p.seconds = double(clock.elapsed()) / 1000.0;
        p.perMinute = p.seconds > 0 ? double(p.schedules) * 60.0 / p.seconds : 0;
        if (progress)
            progress(p);
    };
    const auto stopNow = [&] { return cancelled && cancelled(); };

    // Profile: the workload without faults. Its holds are where the guided search aims; a violation here
    // needs no fault at all.
    FaultSchedule none;
    none.workers = target.workers();
    none.origin = QStringLiteral("no fault");
    ScheduleVerdict profile;
    for (const ScheduleVerdict &v : runMany(none, 2, m_options.seed, cancelled)) {
        if (v.ran && (!profile.ran || !v.worstOf(m_options.properties)))
            profile = v;
    }
    result.runs += 2;
    if (!profile.ran) {
        const QList<ScheduleVerdict> retry = runMany(none, 1, m_options.seed + 99, cancelled);
        profile = retry.value(0);
        result.runs += 1;
        if (!profile.ran) {
            result.stoppedBecause = QStringLiteral("failed");
            result.sentence = QStringLiteral("the fault-free run failed: %1").arg(profile.error);
            result.seconds = double(clock.elapsed()) / 1000.0;
            return result;
        }
    }
    ScheduleGenerator::Options go;
    go.mode = m_options.mode;
    go.faults = m_options.faults;
    go.seed = m_options.seed;
    go.shardIndex = m_options.shardIndex;
    go.shardCount = m_options.shardCount;
    go.maxPauseMs = m_options.maxPauseMs;
    go.maxDelayMs = m_options.maxDelayMs;
    ScheduleGenerator generator(target, go);
    generator.setProfile(profile);

    std::optional<ScheduleVerdict> sighting;
    // The property the sighting broke (meaningful while there is a sighting).
    ScheduleVerdict::Property property = ScheduleVerdict::Property::Overlap;
    if (const auto worst = profile.worstOf(m_options.properties)) {
        sighting = profile;
        property = *worst;
        result.firstViolationSchedules = 0;
    }
    const auto considerClosest = [&](const ScheduleVerdict &v) {
        if (v.closestMarginMs && (!result.closestMarginMs || *v.closestMarginMs < *result.closestMarginMs)) {
            result.closestMarginMs = v.closestMarginMs;
            result.closestText = v.inActorsWords(v.closestText) + QStringLiteral(" — with ") + v.schedule.describe();
        }
    };
    considerClosest(profile);

    bool searching = true;
    while (searching) {
        // Search until a sighting (or the budget, or the count).
        while (!sighting) {
            if (stopNow()) {
                result.stoppedBecause = QStringLiteral("interrupted");
                break;
            }
            if (clock.elapsed() >= qint64(m_options.budgetS * 1000)) {
                result.stoppedBecause = QStringLiteral("budget");
                break;
            }
            if (m_options.maxSchedules > 0 && result.schedulesTried >= m_options.maxSchedules) {
                result.stoppedBecause = QStringLiteral("schedules");
                break;
            }
            int batch = m_options.parallel;
            if (m_options.maxSchedules > 0)
                batch = int(std::min<qint64>(batch, m_options.maxSchedules - result.schedulesTried));
            QList<ScheduleRunner::Job> jobs;
            for (const FaultSchedule &s : generator.next(batch))
                jobs << ScheduleRunner::Job {s, m_options.seed + quint64(result.runs + jobs.size()) * 31};
            if (jobs.isEmpty()) {
                result.stoppedBecause = QStringLiteral("no faults to try");
                break;
            }
            const QList<ScheduleVerdict> verdicts = m_runner->run(jobs, cancelled);
            for (const ScheduleVerdict &v : verdicts) {
                if (!v.ran)
                    continue;
                ++result.schedulesTried;
                ++result.runs;
                generator.noteTried(v.schedule);
                considerClosest(v);
                const auto worst = v.worstOf(m_options.properties);
                if (worst)
                    ++p.violating;
                if (worst && (!sighting || int(*worst) < int(property))) {
                    sighting = v;
                    property = *worst;
                    result.firstViolationSchedules = result.schedulesTried;
                    result.firstViolationSeconds = double(clock.elapsed()) / 1000.0;
                }
            }
            p.schedules = result.schedulesTried;
            p.best = sighting ? ScheduleVerdict::propertyName(property) + QStringLiteral(": ")
                    + sighting->inActorsWords(sighting->sentence)
                              : result.closestText;
            report(QStringLiteral("search"));
        }
        if (!sighting || m_options.firstOnly)
            break;

        // Shrink the sighting, then confirm what is left.
        result.firstFailing = sighting->schedule;
        ScheduleShrinker::Result shrunk;
        shrunk.minimal = sighting->schedule;
        shrunk.failing = *sighting;
        if (m_options.shrink && !sighting->schedule.faults.isEmpty()) {
            report(QStringLiteral("shrink"));
            ScheduleShrinker shrinker(*m_runner, property, m_options.seed + 7777);
            shrunk = shrinker.shrink(*sighting, cancelled);
            result.runs += shrunk.runs;
        }
        report(QStringLiteral("confirm"));
        // Confirmation: the minimal schedule, rerun. A length shrunk to the very edge may break the lock in
        // only some reruns (its timing against the lease jitters by a few ms); then longer lengths up to the
        // one first seen failing are confirmed in turn, and the one that reproduces best is the minimal
        // schedule. Every count is reported as measured.
        std::optional<ScheduleVerdict> told;
        if (shrunk.failing.violates(property))
            told = shrunk.failing;
        int violated = 0, ran = 0;
        QList<ExploreResult::Boundary::Step> confirmations;
        QList<double> lengths {-1}; // -1: the minimal as shrunk
        if (shrunk.boundaryFault >= 0 && shrunk.boundaryFault < shrunk.minimal.faults.size()) {
            const double shrunkLength = shrunk.minimal.faults.at(shrunk.boundaryFault).durationMs;
            const double firstLength = sighting->schedule.faults.size() == shrunk.minimal.faults.size()
                ? sighting->schedule.faults.at(shrunk.boundaryFault).durationMs
                : shrunkLength;
            for (double up : {0.05, 0.15}) {
                const double l = std::round(shrunkLength + up * target.leaseMs());
                if (l < firstLength)
                    lengths << l;
            }
            if (firstLength > shrunkLength)
                lengths << firstLength;
        }
        // Then back along the shrinking's path (each step there failed twice), at most two steps.
        QList<FaultSchedule> candidates;
        for (double length : lengths) {
            FaultSchedule candidate = shrunk.minimal;
            if (length > 0)
                candidate.faults[shrunk.boundaryFault].durationMs = length;
            candidates << candidate;
        }
        for (qsizetype k = shrunk.path.size() - 2; k >= 0 && k >= shrunk.path.size() - 3; --k)
            candidates << shrunk.path.at(k);
        if (shrunk.path.size() > 0 && shrunk.path.size() < 3 && !(sighting->schedule.faults == shrunk.minimal.faults))
            candidates << sighting->schedule;
        FaultSchedule confirmedSchedule = shrunk.minimal;
        for (qsizetype k = 0; k < candidates.size(); ++k) {
            const FaultSchedule &candidate = candidates.at(k);
            const bool sameFaults = candidate.faults.size() == shrunk.minimal.faults.size()
                && candidate.workers == shrunk.minimal.workers;
            int candidateRan = 0, candidateViolated = 0;
            std::optional<ScheduleVerdict> candidateTold;
            for (const ScheduleVerdict &v : runMany(candidate, m_options.confirmRuns, m_options.seed + 555, cancelled)) {
                ++result.runs;
                if (!v.ran)
                    continue;
                ++candidateRan;
                result.fencingRejections = std::max(result.fencingRejections, v.fencingRejections);
                result.dataLost = result.dataLost || v.violates(ScheduleVerdict::Property::LostUpdate);
                if (v.violates(property)) {
                    ++candidateViolated;
                    if (!candidateTold)
                        candidateTold = v;
                }
            }
            if (shrunk.boundaryFault >= 0 && sameFaults)
                confirmations.append({candidate.faults.at(shrunk.boundaryFault).durationMs, candidateRan, candidateViolated});
            if (candidateViolated * ran > violated * candidateRan || ran == 0) {
                violated = candidateViolated;
                ran = candidateRan;
                confirmedSchedule = candidate;
                if (k > 0 || !told)
                    told = candidateTold ? candidateTold : told;
            }
            if (candidateRan > 0 && candidateViolated * 5 >= candidateRan * 4)
                break; // 4 of 5 or better: confirmed
            if (cancelled && cancelled())
                break;
        }
        if (confirmedSchedule.faults.size() != shrunk.minimal.faults.size() || confirmedSchedule.workers != shrunk.minimal.workers)
            shrunk.boundaryFault = -1; // a step back along the path: its faults are not those the boundary was measured on
        shrunk.minimal = confirmedSchedule;
        if (violated == 0) {
            // Seen, never again: reported, not counted; the search goes on if it may.
            result.unconfirmed << QStringLiteral("%1 with %2 (0 of %3 reruns)")
                                      .arg(ScheduleVerdict::propertyName(property), sighting->schedule.describe())
                                      .arg(ran);
            sighting.reset();
            result.firstViolationSchedules = 0;
            result.firstViolationSeconds = 0;
            continue;
        }
        result.found = true;
        result.property = ScheduleVerdict::propertyName(property);
        result.minimal = shrunk.minimal;
        result.reproducedRuns = ran;
        result.reproducedViolated = violated;
        const ScheduleVerdict failing = *told;
        result.confirmations = confirmations;
        result.sentence = failing.inActorsWords(failing.sentence);
        result.fencingRejections = std::max(result.fencingRejections, failing.fencingRejections);

        // The boundary: the length just below the shortest that failed, tried again and again.
        if (shrunk.boundaryFault >= 0 && shrunk.boundaryFault < shrunk.minimal.faults.size() && m_options.boundaryRuns > 0) {
            report(QStringLiteral("boundary"));
            const ScheduledFault f = shrunk.minimal.faults.at(shrunk.boundaryFault);
            ExploreResult::Boundary b;
            b.fault = ScheduledFault::typeName(f.type);
            b.process = FaultSchedule::actorNames(shrunk.minimal.workers).value(f.target);
            b.failsAtMs = shrunk.failsAtMs;
            // Lengths between the shortest that failed every time and one that never fails are a grey zone
            // (the fault's timing against the lease jitters by a few ms): walk down, at most three steps,
            // until a length never fails, and report every step as measured.
            double below = shrunk.passedAtMs >= 0 ? shrunk.passedAtMs : std::round(shrunk.failsAtMs * 9) / 10;
            QStringList steps;
            for (int step = 0; step < 3 && below > 0; ++step) {
                FaultSchedule shorter = shrunk.minimal;
                shorter.faults[shrunk.boundaryFault].durationMs = below;
                int runs = 0;
                int broke = 0;
                for (const ScheduleVerdict &v : runMany(shorter, m_options.boundaryRuns, m_options.seed + 999 + step, cancelled)) {
                    if (!v.ran)
                        continue;
                    ++runs;
                    broke += v.violates(property) ? 1 : 0;
                }
                result.runs += m_options.boundaryRuns;
                b.triedBelowMs = below;
                b.belowRuns = runs;
                b.belowViolated = broke;
                if (broke == 0 || runs == 0) {
                    steps << QStringLiteral("%1 never did in %2 tries").arg(length(below)).arg(runs);
                    break;
                }
                steps << QStringLiteral("%1 did in %2 of %3 tries").arg(length(below)).arg(broke).arg(runs);
                b.grey.append({below, runs, broke});
                const double stepDown = std::max(0.05 * target.leaseMs(), b.failsAtMs - below);
                below = std::round(below - stepDown);
            }
            // The confirmations at one length are one measurement, however many times the walk came back to
            // it; and the headline is the shortest length that broke it at all, never one above a length that
            // also broke it.
            QList<ExploreResult::Boundary::Step> byLength;
            for (const ExploreResult::Boundary::Step &c : result.confirmations) {
                auto same = std::find_if(byLength.begin(), byLength.end(),
                                         [&](const ExploreResult::Boundary::Step &x) { return x.ms == c.ms; });
                if (same == byLength.end()) {
                    byLength.append(c);
                } else {
                    same->runs += c.runs;
                    same->violated += c.violated;
                }
            }
            QStringList confirmed;
            for (const ExploreResult::Boundary::Step &c : std::as_const(byLength)) {
                confirmed << QStringLiteral("%1 broke it in %2 of %3").arg(length(c.ms)).arg(c.violated).arg(c.runs);
                if (c.violated > 0)
                    b.failsAtMs = std::min(b.failsAtMs, c.ms);
            }
            for (const ExploreResult::Boundary::Step &g : std::as_const(b.grey))
                b.failsAtMs = std::min(b.failsAtMs, g.ms);
            const bool floorFound = b.belowRuns > 0 && b.belowViolated == 0;
            b.text = boundaryText(property, f, b.process, b.failsAtMs, target.leaseMs())
                + (confirmed.isEmpty() ? QString() : QStringLiteral(": ") + confirmed.join(QStringLiteral(", ")))
                + QStringLiteral("; ") + steps.join(QStringLiteral("; "))
                + (floorFound ? QString() : QStringLiteral("; no shorter length was tried, so it may break below that too"));
            result.boundary = b;
        }

        // The story, and whether it replays.
        report(QStringLiteral("story"));
        StoryWriter::Context context;
        context.command = m_options.commandLine;
        context.reproduced = QStringLiteral("%1 of %2 reruns").arg(violated).arg(ran);
        if (result.boundary)
            context.boundary = result.boundary->text;
        m_story = StoryWriter::write(target, failing, property, context);
        if (m_options.storyRuns > 0) {
            result.storyRuns = m_options.storyRuns;
            result.storyReplayed = replayStory(*m_story, m_options.storyRuns, cancelled);
            result.storyProblem = m_storyProblem;
            result.runs += m_options.storyRuns;
        }
        result.stoppedBecause = QStringLiteral("found");
        searching = false;
    }
    if (m_options.firstOnly && sighting) {
        result.found = true; // seen (not confirmed): the benchmark's count only
        result.property = ScheduleVerdict::propertyName(property);
        result.sentence = sighting->inActorsWords(sighting->sentence);
        result.firstFailing = sighting->schedule;
        result.minimal = sighting->schedule;
        result.stoppedBecause = QStringLiteral("first sighting");
    }
    result.coverage = generator.coverage().toJson();
    result.coverageText = generator.coverage().text();
    result.seconds = double(clock.elapsed()) / 1000.0;
    return result;
}
