// TimelineHitTester: every lookup is a binary search into time-ordered lists around the mouse's moment, so a
// tooltip costs the same on a run of a hundred events or of a million.
#include "timelinehittester.h"

#include "common/textformat.h"
#include "timelineshapes.h"

using Hold = TimelineData::Hold;
using Wait = TimelineData::Wait;
using Mark = TimelineData::Mark;
using Shade = TimelineData::Shade;
using Lane = TimelineLayout::Lane;
using LaneType = TimelineLayout::LaneType;
using TimelineShapes::kVoteCellPx;

TimelineHitTester::TimelineHitTester(const TimelineData &data, const TimelineLayout &layout,
                                     const TimelinePalette &palette, const TextLookup &textLookup)
    : m_data(data)
    , m_layout(layout)
    , m_palette(palette)
    , m_textLookup(textLookup)
{
}

TimelineHitTester::Hit TimelineHitTester::hitTest(const QPoint &pos, const TimelineLayout::View &view) const
{
    Hit hit;
    const QRect lanes = TimelineLayout::lanesRect(view);
    hit.timeUs = TimelineLayout::timeForX(pos.x(), view);
    if (pos.y() < lanes.top())
        return hit;
    const int row = m_layout.laneAt(pos.y(), view);
    if (row < 0)
        return hit;
    const Lane &lane = m_layout.lanes().at(row);
    if (pos.x() < lanes.left()) {
        // The name column: only a process's name does something (a click there collapses or expands it).
        if (lane.type == LaneType::Process)
            hit.html = processNameHtml(lane);
        return hit;
    }
    Probe q;
    q.t = hit.timeUs;
    q.limit = std::min(m_data.nowUs(), view.cursorUs);
    if (q.t > q.limit)
        return hit;
    q.tol = qint64(5.0 * double(view.endUs - view.startUs) / std::max(1, lanes.width()));
    if (violationHit(lane, q, &hit))
        return hit;
    switch (lane.type) {
    case LaneType::Story:
        hit.html = storyHtml(q);
        break;
    case LaneType::Server:
        hit.html = serverHtml(lane.index, q);
        break;
    case LaneType::Lock:
        hit.html = lockHtml(lane.index, q);
        break;
    case LaneType::Process:
        hit.html = lane.collapsed ? processHtml(lane.index, q) : processNameHtml(lane);
        break;
    case LaneType::Worker: {
        // Redlock vote cells sit in the lower half of the lane.
        const double laneTop = lanes.top() + lane.y - view.scrollY;
        hit.html = workerHtml(lane.index, pos.y() >= laneTop + lane.height / 2.0, q, view);
        break;
    }
    }
    return hit;
}

bool TimelineHitTester::violationHit(const Lane &lane, const Probe &q, Hit *hit) const
{
    for (int i = 0; i < m_data.violations().size(); ++i) {
        const Violation &v = m_data.violations().at(i);
        const qint64 end = v.openEnded ? q.limit : v.endUs;
        bool onLane = (lane.type == LaneType::Worker && v.workers.contains(lane.index))
            || (lane.type == LaneType::Lock && lane.index == v.lock);
        for (int w : v.workers) // a collapsed process's lane stands for its workers
            onLane = onLane
                || (lane.type == LaneType::Process && lane.collapsed
                    && m_data.layout().workerProcesses.value(w, -1) == lane.index);
        if (onLane && q.t >= v.startUs - q.tol && q.t <= end + q.tol) {
            hit->violation = i;
            hit->html
                = QObject::tr("<b style='color:%1'>%2</b><br>%3<br>%4 – %5")
                      .arg(m_palette.overlapEdge.name(), Violation::typeName(v.type).toHtmlEscaped(),
                           v.text.toHtmlEscaped(), TextFormat::runTime(v.startUs, 1000),
                           v.openEnded ? QObject::tr("end of run") : TextFormat::runTime(v.endUs, 1000));
            return true;
        }
    }
    return false;
}

QString TimelineHitTester::storyHtml(const Probe &q) const
{
    // The step whose marker is under the mouse, else the step the story was at then.
    QString html;
    for (const TimelineData::Step &s : m_data.steps()) {
        if (q.near(s.timeUs) || (s.timeUs <= q.t && m_data.stepAt(q.t) == &s)) {
            html = QObject::tr("<b>Step %1</b> at %2<br>%3")
                       .arg(s.number)
                       .arg(TextFormat::runTime(s.timeUs, 1000), s.note.toHtmlEscaped());
            if (q.near(s.timeUs))
                return html;
        }
    }
    return html;
}

QString TimelineHitTester::serverHtml(int server, const Probe &q) const
{
    for (const TimelineData::ServerMark &m : m_data.serverMarks(server)) {
        if (q.near(m.timeUs))
            return QObject::tr("<b>%1</b> at %2<br>%3")
                .arg(HistoryEvent::faultName(m.type), TextFormat::runTime(m.timeUs, 1000),
                     eventText(m.event).toHtmlEscaped());
    }
    for (const Shade &s : m_data.serverShades(server)) {
        if (s.startUs <= q.t && q.t <= s.endUs)
            return QObject::tr("<b>server %1 %2</b> from %3<br>%4")
                .arg(server)
                .arg(s.type == Shade::Type::ServerDown ? QObject::tr("down") : QObject::tr("paused"),
                     TextFormat::runTime(s.startUs, 1000), eventText(s.event).toHtmlEscaped());
    }
    return QObject::tr("server %1 is up").arg(server);
}

QString TimelineHitTester::lockHtml(int lock, const Probe &q) const
{
    for (int w = 0; w < m_data.workerCount(); ++w) {
        for (const Hold &h : m_data.holds(w, lock)) {
            if (h.startUs > q.t + q.tol)
                break;
            if (q.t <= std::min(h.keyEndUs(), q.limit) + q.tol) {
                QString html = holdHtml(w, lock, h);
                if (h.validUntilUs != TimelineData::kOpen && q.t < h.validUntilUs && h.leaseMs > 0)
                    html += QObject::tr("<br>TTL left at %1: about %2")
                                .arg(TextFormat::runTime(q.t, 1000),
                                     TextFormat::duration(h.validUntilUs - q.t));
                return html;
            }
        }
    }
    return QObject::tr("<b>%1</b> is free at %2")
        .arg(m_data.layout().locks.value(lock).toHtmlEscaped(), TextFormat::runTime(q.t, 1000));
}

QString TimelineHitTester::workerHtml(int w, bool lowerHalf, const Probe &q,
                                      const TimelineLayout::View &view) const
{
    const qint64 t = q.t;
    const qint64 tol = q.tol;
    const qint64 limit = q.limit;
    const QString name = m_data.layout().workers.value(w).toHtmlEscaped();
    // The nearest of the worker's own marks and renewals within reach.
    const Mark *best = nullptr;
    qint64 bestDistance = tol + 1;
    for (const QList<Mark> *list : {&m_data.marks(w), &m_data.renewals(w)}) {
        const qsizetype i = std::partition_point(list->begin(), list->end(),
                                                 [&](const Mark &m) { return m.timeUs < t - tol; })
            - list->begin();
        for (qsizetype k = i; k < list->size() && list->at(k).timeUs <= t + tol; ++k) {
            const qint64 d = std::llabs(list->at(k).timeUs - t);
            if (d < bestDistance) {
                bestDistance = d;
                best = &list->at(k);
            }
        }
    }
    const int process = m_data.layout().workerProcesses.value(w, -1);
    if (!best && process >= 0 && process < m_data.processCount()) {
        for (const Mark &m : m_data.processMarks(process)) {
            if (q.near(m.timeUs))
                return QObject::tr("<b>fault</b> at %1<br>%2")
                    .arg(TextFormat::runTime(m.timeUs, 1000), eventText(m.event).toHtmlEscaped());
        }
    }
    if (best)
        return markHtml(w, *best);
    if (lowerHalf) {
        if (const TimelineData::Round *round = roundAt(w, t, tol, view))
            return roundHtml(w, *round);
    }
    // Cut off by a network partition: said first, whatever the worker was doing.
    QString partition;
    if (process >= 0 && process < m_data.processCount()) {
        for (const Shade &s : m_data.partitions(process)) {
            if (s.startUs <= t && t <= s.endUs) {
                partition
                    = QObject::tr("<b>%1 is cut off from the servers</b> (network partition) from %2 for "
                                  "%3: nothing it sends gets a reply, nothing renews its lease<br>")
                          .arg(name, TextFormat::runTime(s.startUs, 1000),
                               TextFormat::duration(std::min(s.endUs, limit) - s.startUs));
                break;
            }
        }
    }
    for (int l = 0; l < m_data.lockCount(); ++l) {
        const QList<Hold> &holds = m_data.holds(w, l);
        const qsizetype i = TimelineData::firstEndingAfter(holds, t, [](const Hold &h) {
            return h.releaseEndUs != TimelineData::kOpen ? h.releaseEndUs : h.endUs;
        });
        if (i < holds.size() && holds.at(i).startUs <= t)
            return partition + holdHtml(w, l, holds.at(i));
    }
    const QList<Wait> &waits = m_data.waits(w);
    const qsizetype i = TimelineData::firstEndingAfter(waits, t, [](const Wait &s) { return s.endUs; });
    if (i < waits.size() && waits.at(i).startUs <= t)
        return partition + waitHtml(w, waits.at(i), limit);
    if (!partition.isEmpty())
        return partition;
    if (process >= 0 && process < m_data.processCount()) {
        for (const Shade &s : m_data.processShades(process)) {
            if (s.startUs <= t && t <= s.endUs)
                return QObject::tr("<b>%1 %2</b> from %3<br>%4")
                    .arg(name,
                         s.type == Shade::Type::Crashed ? QObject::tr("crashed") : QObject::tr("paused"),
                         TextFormat::runTime(s.startUs, 1000), eventText(s.event).toHtmlEscaped());
        }
    }
    return QString();
}

QString TimelineHitTester::processNameHtml(const Lane &lane) const
{
    const QString name = m_data.layout().processes.value(lane.index).toHtmlEscaped();
    return lane.collapsed ? QObject::tr("<b>%1</b>: its workers in one lane. Click its name to show each "
                                        "worker's lane.")
                                .arg(name)
                          : QObject::tr("<b>%1</b>: its workers' lanes are below. Click its name to sum them "
                                        "up in one lane.")
                                .arg(name);
}

QString TimelineHitTester::processHtml(int process, const Probe &q) const
{
    const QString name = m_data.layout().processes.value(process).toHtmlEscaped();
    QString html = QObject::tr("<b>%1</b> at %2").arg(name, TextFormat::runTime(q.t, 1000));
    for (const Shade &s : m_data.processShades(process)) {
        if (s.startUs <= q.t && q.t <= s.endUs) {
            html += QObject::tr(": %1 from %2")
                        .arg(s.type == Shade::Type::Crashed ? QObject::tr("crashed") : QObject::tr("paused"),
                             TextFormat::runTime(s.startUs, 1000));
            break;
        }
    }
    // Each worker's state then, as its own lane's name would say it.
    QStringList states;
    for (int w = 0; w < m_data.workerCount(); ++w) {
        if (m_data.layout().workerProcesses.value(w, -1) != process)
            continue;
        const QString state = TimelineData::stateText(m_data.workerStateAt(w, q.t));
        states << QStringLiteral("%1: %2").arg(m_data.layout().workers.value(w).toHtmlEscaped(),
                                               state.isEmpty() ? QObject::tr("idle") : state);
    }
    html += QStringLiteral("<br>") + states.join(QStringLiteral("<br>"));
    html += QObject::tr("<br><i>Click its name to show each worker's lane.</i>");
    return html;
}

QString TimelineHitTester::markHtml(int worker, const Mark &m) const
{
    const QString name = m_data.layout().workers.value(worker).toHtmlEscaped();
    QString what;
    switch (m.type) {
    case Mark::Type::RenewOk:
        what = QObject::tr("renewal: the watchdog pushed the lease back");
        break;
    case Mark::Type::RenewLost:
        what = QObject::tr("renewal failed: the lock was no longer %1's").arg(name);
        break;
    case Mark::Type::RenewUnknown:
        what = QObject::tr("renewal with an unknown outcome");
        break;
    case Mark::Type::Read:
        what = QObject::tr("read the counter: %1").arg(m_data.events().value(m.event).value);
        break;
    case Mark::Type::Write:
        what = QObject::tr("wrote the counter: %1").arg(m_data.events().value(m.event).value);
        break;
    case Mark::Type::WriteRefused:
        what = QObject::tr("the fenced store refused this write: its token is older than one it has seen");
        break;
    case Mark::Type::WriteUnknown:
        what = QObject::tr("write with an unknown outcome");
        break;
    case Mark::Type::ReleaseWithoutHold:
        what = QObject::tr("release sent without holding the lock");
        break;
    case Mark::Type::Error:
        what = QObject::tr("error");
        break;
    case Mark::Type::Fault:
        what = QObject::tr("fault");
        break;
    }
    QString html = QObject::tr("<b>%1</b>: %2 at %3").arg(name, what, TextFormat::runTime(m.timeUs, 1000));
    const QString detail = eventText(m.event);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

QString TimelineHitTester::waitHtml(int worker, const Wait &s, qint64 limit) const
{
    QString outcome;
    switch (s.outcome) {
    case Wait::Outcome::Waiting:
        outcome = QObject::tr("still waiting");
        break;
    case Wait::Outcome::Acquired:
        outcome = QObject::tr("got the lock");
        break;
    case Wait::Outcome::GaveUp:
        outcome = QObject::tr("gave up (acquire timeout)");
        break;
    case Wait::Outcome::Unknown:
        outcome = QObject::tr("outcome unknown (error or timeout)");
        break;
    case Wait::Outcome::Stopped:
        outcome = QObject::tr("the run ended");
        break;
    case Wait::Outcome::Crashed:
        outcome = QObject::tr("crashed while waiting");
        break;
    }
    QString html = QObject::tr("<b>%1 waits for the lock</b><br>from %2 for %3: %4")
                       .arg(m_data.layout().workers.value(worker).toHtmlEscaped(),
                            TextFormat::runTime(s.startUs, 1000),
                            TextFormat::duration(std::min(s.endUs, limit) - s.startUs), outcome);
    int rounds = 0, lost = 0;
    for (const TimelineData::Round &round : m_data.rounds(worker)) {
        if (round.startUs >= s.startUs && round.endUs <= s.endUs) {
            ++rounds;
            lost += round.won() ? 0 : 1;
        }
    }
    if (rounds > 0)
        html += QObject::tr("<br>Redlock: %1, %2 lost")
                    .arg(TextFormat::count(rounds, QObject::tr("round"), QObject::tr("rounds")))
                    .arg(lost);
    const QString detail = eventText(s.endEvent);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

QString TimelineHitTester::eventText(quint32 event) const
{
    if (!m_textLookup || event >= quint32(m_data.events().size()))
        return QString();
    return m_textLookup(m_data.events().at(event));
}

QString TimelineHitTester::holdHtml(int worker, int lock, const Hold &h) const
{
    const QString name = m_data.layout().workers.value(worker).toHtmlEscaped();
    const QString key = m_data.layout().locks.value(lock).toHtmlEscaped();
    QString html;
    const HistoryEvent acquire = m_data.events().value(h.acquireEvent);
    if (acquire.kind == HistoryEvent::Kind::Fault) // a history with the crash and no acquire for it
        return QObject::tr("<b>%1's key %2 has no TTL</b><br>%1 died after SETNX and before EXPIRE: the key "
                           "exists and nothing will ever delete it.")
            .arg(name, key);
    html += QObject::tr("<b>%1 holds %2</b>").arg(name, key);
    html += QObject::tr("<br>acquired at %1").arg(TextFormat::runTime(h.startUs, 1000));
    if (acquire.token > 0)
        html += QObject::tr(", token %1").arg(acquire.token);
    if (const TimelineData::Round *round = m_data.roundOf(worker, h))
        html += QObject::tr("<br>Redlock quorum: %1 (votes %2)")
                    .arg(m_data.events().value(round->event).quorumText(m_data.serverCount()),
                         QString::fromLatin1(
                             m_data.events().value(round->event).votePattern(m_data.serverCount())));
    if (h.leaseMs > 0)
        html += QObject::tr("<br>lease %1 ms from %2")
                    .arg(h.leaseMs)
                    .arg(TextFormat::runTime(h.leaseFromUs, 1000));
    else
        html += QObject::tr("<br>no lease: the key has no TTL, only a delete ends it");
    if (h.flags & Hold::RenewedUnseen)
        html += QObject::tr("<br>its library renews the lease on its own and does not say when: nobody can "
                            "tell when it would run out");
    if (h.renewals > 0)
        html += QObject::tr("<br>renewed %1")
                    .arg(TextFormat::count(h.renewals, QObject::tr("time"), QObject::tr("times")));
    if (h.validUntilUs != TimelineData::kOpen)
        html += QObject::tr("<br>lease %1 at %2")
                    .arg(h.validUntilUs <= m_data.nowUs() ? QObject::tr("ran out") : QObject::tr("runs out"),
                         TextFormat::runTime(h.validUntilUs, 1000));
    if (h.flags & Hold::Crashed)
        html += QObject::tr("<br><b>its process crashed while holding it</b>");
    if (h.deletedUs != TimelineData::kOpen)
        html += QObject::tr("<br><span style='color:%1'><b>its key was deleted at %2 by another worker's "
                            "release</b> (a DEL without owner check)</span>")
                    .arg(m_palette.stale.name(), TextFormat::runTime(h.deletedUs, 1000));
    if (h.releaseOutcome != -1) {
        html += QObject::tr("<br>release sent at %1").arg(TextFormat::runTime(h.endUs, 1000));
        const QString release = eventText(h.releaseEvent);
        if (!release.isEmpty())
            html += QStringLiteral(": ") + release.toHtmlEscaped();
    }
    if (h.expired(m_data.nowUs()))
        html += QObject::tr("<br><span style='color:%1'><b>the lease ran out while %2 still counted on the "
                            "lock</b></span>")
                    .arg(m_palette.stale.name(), name);
    const QString detail = eventText(h.acquireEvent);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

QString TimelineHitTester::roundHtml(int worker, const TimelineData::Round &round) const
{
    const HistoryEvent e = m_data.events().value(round.event);
    const int servers = m_data.serverCount();
    QString title;
    switch (round.outcome) {
    case HistoryEvent::RoundOutcome::Won:
        title = QObject::tr("Redlock round won");
        break;
    case HistoryEvent::RoundOutcome::ValiditySpent:
        title = QObject::tr("Redlock round lost: validity spent");
        break;
    default:
        title = QObject::tr("Redlock round lost: no quorum");
        break;
    }
    QString html = QObject::tr("<b>%1: %2</b> at %3<br>%4 (quorum %5 of %6)")
                       .arg(m_data.layout().workers.value(worker).toHtmlEscaped(), title,
                            TextFormat::runTime(round.startUs, 1000), e.quorumText(servers).toHtmlEscaped())
                       .arg(servers / 2 + 1)
                       .arg(servers);
    QStringList votes;
    for (int s = 0; s < servers; ++s) {
        const int v = round.vote(s);
        votes << QObject::tr("server %1: %2")
                     .arg(s)
                     .arg(v == 1       ? QObject::tr("granted")
                              : v == 0 ? QObject::tr("refused")
                                       : QObject::tr("no answer"));
    }
    html += QStringLiteral("<br>") + votes.join(QStringLiteral(" · "));
    if (!round.won())
        html += QObject::tr("<br>its partial votes were taken back on every server");
    const QString detail = eventText(round.event);
    if (!detail.isEmpty())
        html += QStringLiteral("<br><i>%1</i>").arg(detail.toHtmlEscaped());
    return html;
}

const TimelineData::Round *TimelineHitTester::roundAt(int worker, qint64 t, qint64 tol,
                                                      const TimelineLayout::View &view) const
{
    const QList<TimelineData::Round> &rounds = m_data.rounds(worker);
    if (rounds.isEmpty())
        return nullptr;
    const double rowPx = m_data.serverCount() * (kVoteCellPx + 1) + 1;
    const qint64 rowUs = qint64(rowPx * double(view.endUs - view.startUs)
                                / std::max(1, TimelineLayout::lanesRect(view).width()));
    const auto it = std::partition_point(rounds.begin(), rounds.end(), [&](const TimelineData::Round &r) {
        return r.startUs + rowUs + tol < t;
    });
    for (auto i = it; i != rounds.end() && i->startUs <= t + tol; ++i) {
        if (t >= i->startUs - tol && t <= i->startUs + rowUs + tol)
            return &*i;
    }
    return nullptr;
}
