// StoryFork: the change is made on the scenario's JSON and parsed again, so a fork is checked exactly like
// a scenario the user typed (an algorithm that cannot take the story's options says why).
#include "storyfork.h"

#include "scenarioparser.h"

#include <QJsonArray>

namespace {

QString seconds(qint64 ms)
{
    return ms % 1000 == 0 ? QStringLiteral("%1 s").arg(ms / 1000)
                          : QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', ms % 100 == 0 ? 1 : 2);
}

int pauseStepFrom(const Scenario &story, int stepIndex)
{
    for (int i = std::max(0, stepIndex); i < story.story.steps.size(); ++i) {
        if (story.story.steps.at(i).action == Scenario::Step::Action::Pause)
            return i;
    }
    return -1;
}

bool fenced(const Scenario &s)
{
    return s.resource.fencedStore;
}

// One actor-visible outcome of an event, or empty for what is not compared (invokes carry the lease, which
// a fork may change; renewals and Redlock rounds depend on timing, not on the story).
QString signature(const HistoryEvent &e)
{
    using K = HistoryEvent::Kind;
    if (e.phase == HistoryEvent::Phase::Invoke)
        return {};
    switch (e.kind) {
    case K::Acquire:
        return QStringLiteral("acquire %1").arg(HistoryEvent::phaseName(e.phase));
    case K::Release:
        return e.phase == HistoryEvent::Phase::Ok
            ? QStringLiteral("release %1")
                  .arg(HistoryEvent::releaseOutcomeName(HistoryEvent::ReleaseOutcome(e.outcome)))
            : QStringLiteral("release %1").arg(HistoryEvent::phaseName(e.phase));
    case K::Read:
        return QStringLiteral("read %1").arg(e.phase == HistoryEvent::Phase::Ok ? QString::number(e.value)
                                                                                 : HistoryEvent::phaseName(e.phase));
    case K::Write:
        return e.outcome == quint8(HistoryEvent::WriteOutcome::FencedOut)
            ? QStringLiteral("write refused (stale token)")
            : QStringLiteral("write %1").arg(HistoryEvent::phaseName(e.phase));
    case K::Expire:
        return QStringLiteral("lease expired");
    default:
        return {};
    }
}

struct Outcomes
{
    QList<QStringList> byActor; // per worker, in order
    QList<QList<int>> steps;
};

// Each worker's outcomes before the fork step came due, with the narrated step each came after.
Outcomes outcomesBefore(const QList<HistoryEvent> &events, int actors, int stepIndex)
{
    Outcomes o;
    o.byActor.resize(actors);
    o.steps.resize(actors);
    int lastStep = -1;
    for (const HistoryEvent &e : events) {
        if (e.kind == HistoryEvent::Kind::Fault
            && HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::StoryStep) {
            if (e.value >= stepIndex)
                break;
            lastStep = int(e.value);
            continue;
        }
        if (e.worker < 0 || e.worker >= actors)
            continue;
        const QString s = signature(e);
        if (s.isEmpty())
            continue;
        o.byActor[e.worker] << s;
        o.steps[e.worker] << lastStep;
    }
    return o;
}

} // namespace

QList<StoryFork::Change> StoryFork::changesAt(const Scenario &story, int stepIndex)
{
    QList<Change> changes {Change::Lease};
    if (story.resource.counter)
        changes << Change::Fencing;
    if (pauseStepFrom(story, stepIndex) >= 0)
        changes << Change::PauseLength;
    changes << Change::Algorithm;
    return changes;
}

QString StoryFork::currentValue(const Scenario &story, int stepIndex, Change change)
{
    switch (change) {
    case Change::Lease:
        return seconds(story.algorithm.leaseMs);
    case Change::Fencing:
        return fenced(story) ? QStringLiteral("on") : QStringLiteral("off");
    case Change::PauseLength: {
        const int i = pauseStepFrom(story, stepIndex);
        return i < 0 ? QString() : seconds(qint64(story.story.steps.at(i).ms));
    }
    case Change::Algorithm:
        return story.client.isSet() ? story.client.name() : story.algorithm.id; // a library is its algorithm
    }
    return {};
}

bool StoryFork::apply(const Scenario &recorded, int stepIndex, const Choice &choice, Scenario *fork,
                      QString *error)
{
    if (recorded.kind != Scenario::Kind::Story) {
        *error = QStringLiteral("only a story can be forked");
        return false;
    }
    if (stepIndex < 0 || stepIndex >= recorded.story.steps.size()) {
        *error = QStringLiteral("there is no step %1 to fork at").arg(stepIndex + 1);
        return false;
    }
    QJsonObject json = ScenarioParser::toJson(recorded);
    json.remove(QStringLiteral("variants"));
    // A variant's run is named "<story>.<variant>", which is no scenario id.
    QString id = recorded.id;
    id.replace(u'.', u'-');
    json.insert(QStringLiteral("id"), id.left(59) + QStringLiteral("-fork"));
    json.remove(QStringLiteral("expect"));
    QJsonObject algorithm = json.value(QStringLiteral("algorithm")).toObject();
    QJsonObject resource = json.value(QStringLiteral("resource")).toObject();
    switch (choice.change) {
    case Change::Lease:
        if (choice.ms <= 0) {
            *error = QStringLiteral("a lease must be longer than 0 ms");
            return false;
        }
        algorithm.insert(QStringLiteral("lease_ms"), choice.ms);
        break;
    case Change::Fencing:
        if (!recorded.resource.counter) {
            *error = QStringLiteral("this story has no counter for fencing tokens to protect");
            return false;
        }
        resource.insert(QStringLiteral("fenced_store"), choice.fencing);
        algorithm.insert(QStringLiteral("fencing"), choice.fencing);
        // Only the fenced lock hands out tokens; the lock it fences is Redisson's RLock.
        if (choice.fencing)
            algorithm.insert(QStringLiteral("id"), QStringLiteral("fenced"));
        else if (recorded.algorithm.id == QLatin1String("fenced"))
            algorithm.insert(QStringLiteral("id"), QStringLiteral("redisson-reentrant"));
        break;
    case Change::PauseLength: {
        const int i = pauseStepFrom(recorded, stepIndex);
        if (i < 0) {
            *error = QStringLiteral("no pause is still to come from this step");
            return false;
        }
        if (choice.ms < 0) {
            *error = QStringLiteral("a pause cannot be negative");
            return false;
        }
        QJsonObject story = json.value(QStringLiteral("story")).toObject();
        QJsonArray steps = story.value(QStringLiteral("steps")).toArray();
        QJsonObject step = steps.at(i).toObject();
        step.insert(QStringLiteral("ms"), double(choice.ms));
        steps.replace(i, step);
        story.insert(QStringLiteral("steps"), steps);
        json.insert(QStringLiteral("story"), story);
        break;
    }
    case Change::Algorithm:
        algorithm.insert(QStringLiteral("id"), choice.algorithmId);
        break;
    }
    // Fencing or another algorithm is one of LockScope's locks instead of the library's (as the fenced
    // variant of gc-pause-libraries is): with the client kept, the fork could not run ("the fenced store is
    // LockScope's own").
    if ((choice.change == Change::Fencing && choice.fencing) || choice.change == Change::Algorithm)
        json.remove(QStringLiteral("client"));
    json.insert(QStringLiteral("algorithm"), algorithm);
    json.insert(QStringLiteral("resource"), resource);
    QStringList errors;
    Scenario parsed;
    if (!ScenarioParser().parse(json, &parsed, &errors)) {
        *error = errors.join(QStringLiteral("; "));
        return false;
    }
    *fork = parsed;
    return true;
}

QString StoryFork::describe(const Scenario &recorded, int stepIndex, const Choice &choice)
{
    const QString before = currentValue(recorded, stepIndex, choice.change);
    switch (choice.change) {
    case Change::Lease:
        return QStringLiteral("lease %1 → %2").arg(before, seconds(choice.ms));
    case Change::Fencing:
        return QStringLiteral("fencing %1 → %2").arg(before, choice.fencing ? QStringLiteral("on") : QStringLiteral("off"));
    case Change::PauseLength:
        return QStringLiteral("pause %1 → %2").arg(before, seconds(choice.ms));
    case Change::Algorithm:
        return QStringLiteral("algorithm %1 → %2").arg(before, choice.algorithmId);
    }
    return {};
}

StoryFork::Divergence StoryFork::compare(const Scenario &story, const QList<HistoryEvent> &recorded,
                                         const QList<HistoryEvent> &fork, int stepIndex)
{
    const int actors = int(story.story.actors.size());
    const Outcomes a = outcomesBefore(recorded, actors, stepIndex);
    const Outcomes b = outcomesBefore(fork, actors, stepIndex);
    Divergence d;
    for (int w = 0; w < actors; ++w) {
        const QStringList &x = a.byActor.at(w), &y = b.byActor.at(w);
        for (qsizetype i = 0; i < std::max(x.size(), y.size()); ++i) {
            const QString in = i < x.size() ? x.at(i) : QStringLiteral("nothing more");
            const QString out = i < y.size() ? y.at(i) : QStringLiteral("nothing more");
            if (in == out)
                continue;
            const int step = i < x.size() ? a.steps.at(w).at(i) : b.steps.at(w).at(i);
            if (d.same || step < d.stepIndex) {
                d.same = false;
                d.stepIndex = std::max(0, step);
                d.what = QStringLiteral("%1: %2 in the recording, %3 in the fork")
                             .arg(story.story.actors.at(w), in, out);
            }
            break;
        }
    }
    return d;
}
