// The interactive swimlane timeline: zoom (Ctrl+wheel, +/-), pan (drag, Shift+wheel, scroll bar), a time
// cursor to scrub and replay a finished run, follow-live while a run goes on, hover tooltips with each
// event's details, and clicks on violation bands. Painting is TimelineRenderer's.
#pragma once

#include "timelinerenderer.h"

#include <QAbstractScrollArea>

class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);

    // The run to show (nullptr: none). The data must stay alive until replaced.
    void setData(const TimelineData *data, TimelineRenderer::TextLookup lookup = {});
    const TimelineData *data() const { return m_renderer.data(); }
    // The run's planned length: the time axis spans at least this much while the run goes on.
    void setPlannedUs(qint64 us);
    // The time axis spans at least this much even once the run is over: two runs compared on one axis.
    void setMinimumSpanUs(qint64 us);
    // New events arrived (or the run finished): relayout if needed, follow, repaint.
    void refresh();

    void setFollowLive(bool on);
    bool followsLive() const { return m_follow; }
    // The replay cursor; kOpen shows everything.
    void setCursorTime(qint64 us);
    qint64 cursorTime() const { return m_cursorUs; }
    void clearCursor() { setCursorTime(TimelineData::kOpen); }

    qint64 viewStart() const { return m_startUs; }
    qint64 viewEnd() const { return m_endUs; }
    qint64 totalUs() const; // the extent of the time axis
    void showRange(qint64 startUs, qint64 endUs);
    void zoomToFit();
    void zoomBy(double factor, qint64 aroundUs);
    // Centres and zooms on a violation and highlights it.
    void selectViolation(int index);
    int selectedViolation() const { return m_selectedViolation; }
    // Centres the view on a moment without changing the zoom.
    void revealTime(qint64 us);

    // Processes' lanes (see TimelineRenderer::groupsWorkers): a click on a process's name does the same.
    void setProcessCollapsed(int process, bool collapsed);
    void setAllProcessesCollapsed(bool collapsed);
    // More workers than this: a new run's processes start collapsed, one lane each.
    static constexpr int kCollapseAbove = 16;

    const TimelineRenderer &renderer() const { return m_renderer; }
    TimelineRenderer::View currentView() const;
    // Paints the whole run (every lane, the whole time axis, the legend) at `width` pixels wide: for the
    // PNG and SVG exports.
    QSize exportSize(int width) const;
    void paintExport(QPainter &painter, const QSize &size) const;

signals:
    void cursorMoved(qint64 us);
    void followLiveChanged(bool on);
    void violationClicked(int index);
    void rangeChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void updateLaneHeight();
    // The process whose name is at `pos`, or -1.
    int processNameAt(const QPoint &pos) const;
    void updateScrollBars();
    void setRange(qint64 startUs, qint64 endUs, bool userAction);
    qint64 scrollUnit() const;

    TimelineRenderer m_renderer;
    qint64 m_plannedUs = 0;
    qint64 m_minimumSpanUs = 0;
    qint64 m_startUs = 0;
    qint64 m_endUs = 1000000;
    qint64 m_cursorUs = TimelineData::kOpen;
    int m_selectedViolation = -1;
    int m_hoverLane = -1;
    bool m_follow = true;
    bool m_fitting = true; // showing the whole run: keep doing so as it grows
    int m_laneCount = 0;
    bool m_updatingBars = false;
    // Mouse: drag pans, a click places the cursor, dragging on the ruler scrubs.
    QPoint m_pressPos;
    qint64 m_pressStartUs = 0;
    int m_pressScrollY = 0;
    bool m_dragging = false;
    bool m_scrubbing = false;
};
