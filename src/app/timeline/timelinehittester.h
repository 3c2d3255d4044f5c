// What is under the mouse on the timeline, as the HTML of its tooltip: a violation first (that is why people
// hover), else the step, server outage, key tenure, Redlock round, renewal, read or write, wait, partition or
// pause at that lane and moment, with the event's own text where the caller provides it.
#pragma once

#include "timelinelayout.h"
#include "common/timelinepalette.h"

#include <QPoint>
#include <QString>

#include <functional>

class TimelineHitTester
{
public:
    struct Hit
    {
        QString html; // empty: nothing there
        qint64 timeUs = 0;
        int violation = -1;
    };
    // The event log's text for an event (its outcome and details), added to the tooltips; may be empty.
    using TextLookup = std::function<QString(const HistoryEvent &)>;

    TimelineHitTester(const TimelineData &data, const TimelineLayout &layout, const TimelinePalette &palette,
                      const TextLookup &textLookup);

    Hit hitTest(const QPoint &pos, const TimelineLayout::View &view) const;

private:
    // The moment under the mouse, how far the run has played (nothing after it is described), and how near
    // in time counts as "on" a mark (5 px).
    struct Probe
    {
        qint64 t = 0;
        qint64 limit = 0;
        qint64 tol = 0;
        bool near(qint64 at) const { return std::llabs(at - t) <= tol; }
    };

    bool violationHit(const TimelineLayout::Lane &lane, const Probe &q, Hit *hit) const;
    QString storyHtml(const Probe &q) const;
    QString serverHtml(int server, const Probe &q) const;
    QString lockHtml(int lock, const Probe &q) const;
    // A collapsed process's lane: what each of its workers was doing then.
    QString processHtml(int process, const Probe &q) const;
    // A process's name: what clicking it does.
    QString processNameHtml(const TimelineLayout::Lane &lane) const;
    QString workerHtml(int worker, bool lowerHalf, const Probe &q, const TimelineLayout::View &view) const;
    QString eventText(quint32 event) const;
    QString holdHtml(int worker, int lock, const TimelineData::Hold &h) const;
    QString roundHtml(int worker, const TimelineData::Round &round) const;
    QString markHtml(int worker, const TimelineData::Mark &m) const;
    QString waitHtml(int worker, const TimelineData::Wait &s, qint64 limit) const;
    // The round whose cells are at `t` on `worker`'s lane, or nullptr.
    const TimelineData::Round *roundAt(int worker, qint64 t, qint64 tol,
                                       const TimelineLayout::View &view) const;

    const TimelineData &m_data;
    const TimelineLayout &m_layout;
    const TimelinePalette &m_palette;
    const TextLookup &m_textLookup;
};
