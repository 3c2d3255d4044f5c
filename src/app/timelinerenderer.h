// Paints a TimelineData as swimlanes: a ruler, the story's numbered steps, one lane per server (when they
// matter), per lock (owner and its TTL draining) and per worker (waiting amber, holding blue, renewal ticks,
// releases, lease-expired hatching, pause/crash shading), and red bands where critical sections overlap.
// Shared by the interactive view, the PNG/SVG export and the paint benchmark, so all three draw the same.
//
// Dense runs stay cheap: spans narrower than two pixels are accumulated per pixel column and drawn as one
// image per lane, so a frame costs about the same whatever the zoom.
#pragma once

#include "timelinedata.h"
#include "timelinepalette.h"

#include <QFont>
#include <QList>
#include <QRect>
#include <QString>

#include <functional>

class QPainter;

class TimelineRenderer
{
public:
    enum class LaneType { Story, Server, Lock, Worker };
    struct Lane
    {
        LaneType type = LaneType::Worker;
        int index = 0;
        int y = 0; // in content coordinates (0 = just below the ruler)
        int height = 0;
        QString section; // non-empty on the first lane of a section: the title drawn above it
    };
    struct View
    {
        qint64 startUs = 0;
        qint64 endUs = 1000000;
        qint64 cursorUs = TimelineData::kOpen; // replay cursor: nothing after it is shown (kOpen: none)
        int scrollY = 0;
        QRect rect; // the whole widget area to paint
        int selectedViolation = -1;
        int hoverLane = -1;
    };
    struct Hit
    {
        QString html; // empty: nothing there
        qint64 timeUs = 0;
        int violation = -1;
    };
    using TextLookup = std::function<QString(const HistoryEvent &)>;

    static constexpr int kRulerHeight = 28;
    static constexpr int kHeaderWidth = 136;
    static constexpr int kSectionHeight = 16;

    TimelineRenderer();

    void setData(const TimelineData *data);
    const TimelineData *data() const { return m_data; }
    void setPalette(const TimelinePalette &palette) { m_palette = palette; }
    const TimelinePalette &palette() const { return m_palette; }
    void setFont(const QFont &font);
    // Height of one worker lane; the view shrinks it when there are many workers.
    void setWorkerLaneHeight(int height);
    int workerLaneHeight() const { return m_workerLaneHeight; }
    void setTextLookup(TextLookup lookup) { m_textLookup = std::move(lookup); }

    // Lays the lanes out again (after setData, a new server fault, a lane height change).
    void relayout();
    const QList<Lane> &lanes() const { return m_lanes; }
    int contentHeight() const { return m_contentHeight; }
    // Index into lanes() of the lane at widget y, or -1.
    int laneAt(int y, const View &view) const;
    int laneOf(LaneType type, int index) const; // index into lanes(), or -1
    QRect lanesRect(const View &view) const; // right of the names, below the ruler

    double xForTime(qint64 us, const View &view) const;
    qint64 timeForX(double x, const View &view) const;

    void paint(QPainter &painter, const View &view) const;
    Hit hitTest(const QPoint &pos, const View &view) const;


private:
    struct Context;
    void paintRuler(QPainter &p, const Context &c) const;
    void paintHeaders(QPainter &p, const Context &c) const;
    void paintLaneBackgrounds(QPainter &p, const Context &c) const;
    void paintStoryLane(QPainter &p, const Context &c, const Lane &lane) const;
    void paintServerLane(QPainter &p, const Context &c, const Lane &lane) const;
    void paintLockLane(QPainter &p, const Context &c, const Lane &lane) const;
    void paintWorkerLane(QPainter &p, const Context &c, const Lane &lane) const;
    void paintRounds(QPainter &p, const Context &c, const Lane &lane, const QRectF &r,
                     const QRectF &waitBand) const;
    void paintViolations(QPainter &p, const Context &c) const;
    void paintStepGuides(QPainter &p, const Context &c) const;
    QRectF laneRect(const Context &c, const Lane &lane) const;
    QString workerStateText(TimelineData::WorkerState state) const;
    QString eventText(quint32 event) const;
    QString holdHtml(int worker, int lock, const TimelineData::Hold &h) const;
    QString roundHtml(int worker, const TimelineData::Round &round) const;
    // The round whose cells are under `pos` on `worker`'s lane, or nullptr.
    const TimelineData::Round *roundAt(int worker, qint64 t, qint64 tol, const View &view) const;

    const TimelineData *m_data = nullptr;
    TimelinePalette m_palette = TimelinePalette::light();
    QFont m_font;
    QFont m_smallFont;
    QFont m_boldFont;
    int m_workerLaneHeight = 30;
    QList<Lane> m_lanes;
    int m_contentHeight = 0;
    TextLookup m_textLookup;
};
