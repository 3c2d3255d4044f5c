// TimelineView: scroll bars in time units, mouse and keyboard handling, tooltips; paints through the
// renderer.
#include "timelineview.h"
#include "timelinelegendpainter.h"

#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <cmath>

namespace {
constexpr qint64 kMinSpanUs = 200; // the closest zoom: 0.2 ms across the view
}

TimelineView::TimelineView(QWidget *parent)
    : QAbstractScrollArea(parent)
{
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::StrongFocus);
    setFrameShape(QFrame::NoFrame);
    // Only once zoomed in: the whole run has nothing to scroll, and on a short screen the bar's height is
    // most of a lane.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_renderer.setPalette(TimelinePalette::forPalette(palette()));
    m_renderer.setFont(font());
    setToolTip(QString()); // tooltips come from the events under the mouse
    setWhatsThis(tr("Each worker has a lane: amber while it waits for the lock, blue while it holds it, "
                    "hatched red when it still works after its lease ran out. The lock's lane shows who "
                    "the key belongs to and its TTL draining; red bands mark two holders at once."));
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (m_updatingBars)
            return;
        const qint64 span = m_endUs - m_startUs;
        const qint64 start = qint64(value) * scrollUnit();
        setRange(start, start + span, true);
    });
}

void TimelineView::setData(const TimelineData *data, TimelineRenderer::TextLookup lookup)
{
    const bool sameRun = data && m_renderer.data()
        && data->layout().workers == m_renderer.data()->layout().workers
        && data->layout().locks == m_renderer.data()->layout().locks;
    m_renderer.setTextLookup(std::move(lookup));
    m_renderer.setData(data);
    if (!sameRun && data)
        m_renderer.setAllProcessesCollapsed(data->workerCount() > kCollapseAbove);
    m_laneCount = int(m_renderer.lanes().size());
    if (!sameRun) {
        m_selectedViolation = -1;
        m_cursorUs = TimelineData::kOpen;
        m_fitting = true;
        verticalScrollBar()->setValue(0);
    } else if (m_selectedViolation >= 0 && (!data || m_selectedViolation >= data->violations().size())) {
        m_selectedViolation = -1;
    }
    updateLaneHeight();
    refresh();
}

void TimelineView::setPlannedUs(qint64 us)
{
    m_plannedUs = us;
    refresh();
}

qint64 TimelineView::totalUs() const
{
    const TimelineData *d = m_renderer.data();
    const qint64 now = d ? d->nowUs() : 0;
    if (d && d->isFinished())
        return std::max({now, m_minimumSpanUs, qint64(1000)});
    return std::max({m_plannedUs, m_minimumSpanUs, now, qint64(1000)});
}

void TimelineView::setMinimumSpanUs(qint64 us)
{
    m_minimumSpanUs = std::max<qint64>(0, us);
    updateScrollBars();
    viewport()->update();
}

qint64 TimelineView::scrollUnit() const
{
    return std::max<qint64>(1, totalUs() / 200000);
}

void TimelineView::refresh()
{
    const TimelineData *d = m_renderer.data();
    if (d && d->hasServerActivity() != (m_renderer.laneOf(TimelineRenderer::LaneType::Server, 0) >= 0)) {
        m_renderer.relayout(); // a server lane appears with the first server fault
        m_laneCount = int(m_renderer.lanes().size());
        updateLaneHeight();
    }
    if (m_fitting) {
        setRange(-totalUs() / 80, totalUs() + totalUs() / 100, false);
    } else if (m_follow && d && !d->isFinished()) {
        const qint64 span = m_endUs - m_startUs;
        const qint64 now = d->nowUs();
        if (now > m_startUs + span * 9 / 10 || now < m_startUs)
            setRange(std::max<qint64>(0, now - span * 9 / 10),
                     std::max<qint64>(0, now - span * 9 / 10) + span, false);
    }
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setFollowLive(bool on)
{
    if (m_follow == on)
        return;
    m_follow = on;
    if (on) {
        m_cursorUs = TimelineData::kOpen;
        refresh();
    }
    emit followLiveChanged(on);
}

void TimelineView::setCursorTime(qint64 us)
{
    if (us != TimelineData::kOpen)
        us = std::clamp<qint64>(us, 0, totalUs());
    if (m_cursorUs == us)
        return;
    m_cursorUs = us;
    if (us != TimelineData::kOpen) {
        if (m_follow && m_renderer.data() && !m_renderer.data()->isFinished())
            setFollowLive(false);
        // Keep the cursor in sight while scrubbing and replaying.
        const qint64 span = m_endUs - m_startUs;
        if (us < m_startUs || us > m_endUs) {
            m_fitting = false;
            setRange(us - span / 2, us - span / 2 + span, false);
        }
    }
    viewport()->update();
    emit cursorMoved(us);
}

void TimelineView::setRange(qint64 startUs, qint64 endUs, bool userAction)
{
    const qint64 total = totalUs();
    qint64 span
        = std::clamp<qint64>(endUs - startUs, kMinSpanUs, std::max<qint64>(kMinSpanUs, total + total / 40));
    qint64 start
        = std::clamp<qint64>(startUs, -total / 80, std::max<qint64>(-total / 80, total + total / 100 - span));
    if (userAction) {
        m_fitting = span >= total && start <= 0;
        if (m_follow && m_renderer.data() && !m_renderer.data()->isFinished() && !m_fitting) {
            // Panning back in time stops following; keeping the live edge in view follows on.
            const qint64 now = m_renderer.data()->nowUs();
            if (now > start + span)
                setFollowLive(false);
        }
    }
    if (start == m_startUs && start + span == m_endUs)
        return;
    m_startUs = start;
    m_endUs = start + span;
    updateScrollBars();
    viewport()->update();
    emit rangeChanged();
}

void TimelineView::showRange(qint64 startUs, qint64 endUs)
{
    setRange(startUs, endUs, true);
}

void TimelineView::zoomToFit()
{
    m_fitting = true;
    setRange(-totalUs() / 80, totalUs() + totalUs() / 100, false);
}

void TimelineView::zoomBy(double factor, qint64 aroundUs)
{
    const double span = double(m_endUs - m_startUs);
    const double newSpan = std::max(double(kMinSpanUs), span * factor);
    const double ratio = span > 0 ? double(aroundUs - m_startUs) / span : 0.5;
    const qint64 start = aroundUs - qint64(ratio * newSpan);
    setRange(start, start + qint64(newSpan), true);
}

void TimelineView::revealTime(qint64 us)
{
    const qint64 span = m_endUs - m_startUs;
    if (us >= m_startUs + span / 20 && us <= m_endUs - span / 20)
        return;
    setRange(us - span / 2, us - span / 2 + span, true);
}

void TimelineView::selectViolation(int index)
{
    const TimelineData *d = m_renderer.data();
    if (!d || index < 0 || index >= d->violations().size())
        return;
    m_selectedViolation = index;
    const Violation &v = d->violations().at(index);
    const qint64 end = v.openEnded ? d->nowUs() : v.endUs;
    const qint64 window = std::max<qint64>(end - v.startUs, 2000);
    const qint64 margin = std::max<qint64>(window, 200000);
    if (m_follow && !d->isFinished())
        setFollowLive(false);
    setRange(v.startUs - margin, end + margin, true);
    // Bring the lanes involved into view.
    const int row = m_renderer.laneShowing(v.workers.value(0, -1));
    if (row >= 0) {
        const TimelineRenderer::Lane &lane = m_renderer.lanes().at(row);
        const int visible = viewport()->height() - TimelineRenderer::kRulerHeight;
        const int y = verticalScrollBar()->value();
        if (lane.y < y || lane.y + lane.height > y + visible)
            verticalScrollBar()->setValue(lane.y - visible / 3);
    }
    viewport()->update();
}

void TimelineView::updateLaneHeight()
{
    const TimelineData *d = m_renderer.data();
    if (!d || d->workerCount() == 0)
        return;
    // A few lanes stay comfortable: at 20 px a lane still has its labels and its name (the lanes scroll if
    // they must). Many shrink to fit, but never below the height at which every lane keeps its name: past
    // that, they scroll. When even that does not fit (a 700 px screen), the layout goes compact first: no
    // section titles, lower story and lock lanes, so that every worker stays in view.
    int perLane = 0;
    int least = 0;
    int lanes = 1;
    for (const bool compact : {false, true}) {
        m_renderer.setCompact(compact);
        m_renderer.setWorkerLaneHeight(30);
        lanes = std::max(1, m_renderer.layout().workerHeightLanes());
        const int fixed = m_renderer.contentHeight() - lanes * 32;
        const int available = viewport()->height() - TimelineRenderer::kRulerHeight - fixed;
        perLane = available / lanes - 2;
        least = lanes <= 8 ? 20 : m_renderer.readableLaneHeight();
        if (perLane >= least || lanes > 8) // many lanes scroll anyway: titles are worth more then
            break;
    }
    m_renderer.setWorkerLaneHeight(std::clamp(perLane, least, std::max(least, lanes <= 4 ? 48 : 34)));
    updateScrollBars();
}

void TimelineView::setProcessCollapsed(int process, bool collapsed)
{
    m_renderer.setProcessCollapsed(process, collapsed);
    m_laneCount = int(m_renderer.lanes().size());
    updateLaneHeight();
    viewport()->update();
}

void TimelineView::setAllProcessesCollapsed(bool collapsed)
{
    m_renderer.setAllProcessesCollapsed(collapsed);
    m_laneCount = int(m_renderer.lanes().size());
    updateLaneHeight();
    viewport()->update();
}

int TimelineView::processNameAt(const QPoint &pos) const
{
    if (pos.x() >= TimelineRenderer::kHeaderWidth || pos.y() < TimelineRenderer::kRulerHeight)
        return -1;
    const int lane = m_renderer.laneAt(pos.y(), currentView());
    if (lane < 0 || m_renderer.lanes().at(lane).type != TimelineRenderer::LaneType::Process)
        return -1;
    return m_renderer.lanes().at(lane).index;
}

void TimelineView::updateScrollBars()
{
    m_updatingBars = true;
    const qint64 unit = scrollUnit();
    const qint64 total = totalUs();
    const qint64 span = m_endUs - m_startUs;
    QScrollBar *h = horizontalScrollBar();
    h->setRange(int(-total / 80 / unit),
                int(std::max<qint64>(-total / 80, total + total / 100 - span) / unit));
    h->setPageStep(int(std::max<qint64>(1, span / unit)));
    h->setSingleStep(int(std::max<qint64>(1, span / unit / 20)));
    h->setValue(int(m_startUs / unit));
    QScrollBar *v = verticalScrollBar();
    const int visible = viewport()->height() - TimelineRenderer::kRulerHeight;
    v->setRange(0, std::max(0, m_renderer.contentHeight() - visible));
    v->setPageStep(std::max(1, visible));
    v->setSingleStep(std::max(8, m_renderer.workerLaneHeight()));
    m_updatingBars = false;
}

TimelineRenderer::View TimelineView::currentView() const
{
    TimelineRenderer::View view;
    view.startUs = m_startUs;
    view.endUs = m_endUs;
    view.cursorUs = m_cursorUs;
    view.scrollY = verticalScrollBar()->value();
    view.rect = viewport()->rect();
    view.selectedViolation = m_selectedViolation;
    view.hoverLane = m_hoverLane;
    return view;
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    m_renderer.paint(painter, currentView());
    if (!m_renderer.data()) {
        painter.setPen(m_renderer.palette().mutedText);
        painter.drawText(viewport()->rect(), Qt::AlignCenter,
                         tr("Run a scenario (Ctrl+R) and its timeline appears here."));
    }
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateLaneHeight();
    refresh();
}

void TimelineView::scrollContentsBy(int, int)
{
    viewport()->update();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const qint64 at = m_renderer.timeForX(event->position().x(), currentView());
    const bool overflows = verticalScrollBar()->maximum() > 0;
    if (event->modifiers() & Qt::ControlModifier
        || (!overflows && delta.x() == 0 && !(event->modifiers() & Qt::ShiftModifier))) {
        if (delta.y() != 0)
            zoomBy(std::pow(0.8, delta.y() / 120.0), at);
        event->accept();
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier || delta.x() != 0) {
        const int steps = delta.x() != 0 ? delta.x() : delta.y();
        const qint64 span = m_endUs - m_startUs;
        const qint64 shift = qint64(-double(steps) / 120.0 * double(span) * 0.1);
        setRange(m_startUs + shift, m_endUs + shift, true);
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    m_pressPos = event->position().toPoint();
    m_pressStartUs = m_startUs;
    m_pressScrollY = verticalScrollBar()->value();
    m_dragging = false;
    m_scrubbing
        = m_pressPos.y() < TimelineRenderer::kRulerHeight && m_pressPos.x() > TimelineRenderer::kHeaderWidth;
    if (m_scrubbing)
        setCursorTime(m_renderer.timeForX(m_pressPos.x(), currentView()));
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (event->buttons() & Qt::LeftButton) {
        if (m_scrubbing) {
            setCursorTime(m_renderer.timeForX(pos.x(), currentView()));
            return;
        }
        const QPoint d = pos - m_pressPos;
        if (!m_dragging && d.manhattanLength() > 3) {
            m_dragging = true;
            viewport()->setCursor(Qt::ClosedHandCursor);
        }
        if (m_dragging) {
            const double usPerPx
                = double(m_endUs - m_startUs) / std::max(1, m_renderer.lanesRect(currentView()).width());
            const qint64 start = m_pressStartUs - qint64(d.x() * usPerPx);
            setRange(start, start + (m_endUs - m_startUs), true);
            verticalScrollBar()->setValue(m_pressScrollY - d.y());
        }
        return;
    }
    const int lane = m_renderer.laneAt(pos.y(), currentView());
    if (lane != m_hoverLane) {
        m_hoverLane = lane;
        viewport()->update();
    }
    // A process's name is a button.
    if (processNameAt(pos) >= 0)
        viewport()->setCursor(Qt::PointingHandCursor);
    else
        viewport()->unsetCursor();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    viewport()->unsetCursor();
    const int process = m_dragging || m_scrubbing ? -1 : processNameAt(event->position().toPoint());
    if (process >= 0) {
        setProcessCollapsed(process, !m_renderer.isProcessCollapsed(process));
    } else if (!m_dragging && !m_scrubbing) {
        const TimelineRenderer::Hit hit = m_renderer.hitTest(event->position().toPoint(), currentView());
        if (hit.violation >= 0) {
            m_selectedViolation = hit.violation;
            viewport()->update();
            emit violationClicked(hit.violation);
        }
        if (m_renderer.data() && m_renderer.data()->isFinished()
            && event->position().x() > TimelineRenderer::kHeaderWidth)
            setCursorTime(hit.timeUs);
    }
    m_dragging = false;
    m_scrubbing = false;
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && event->position().x() > TimelineRenderer::kHeaderWidth)
        zoomBy(event->modifiers() & Qt::ShiftModifier ? 2.0 : 0.5,
               m_renderer.timeForX(event->position().x(), currentView()));
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const qint64 span = m_endUs - m_startUs;
    const qint64 centre = m_cursorUs != TimelineData::kOpen ? m_cursorUs : (m_startUs + m_endUs) / 2;
    const qint64 step
        = (event->modifiers() & Qt::ShiftModifier) ? span / 10 : std::max<qint64>(1, span / 100);
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(0.5, centre);
        return;
    case Qt::Key_Minus:
        zoomBy(2.0, centre);
        return;
    case Qt::Key_0:
    case Qt::Key_F:
        zoomToFit();
        return;
    case Qt::Key_Left:
    case Qt::Key_Right: {
        const qint64 signedStep = event->key() == Qt::Key_Left ? -step : step;
        if (m_cursorUs != TimelineData::kOpen)
            setCursorTime(m_cursorUs + signedStep);
        else
            setRange(m_startUs + signedStep * 5, m_endUs + signedStep * 5, true);
        return;
    }
    case Qt::Key_Home:
        setCursorTime(0);
        return;
    case Qt::Key_End:
        clearCursor();
        return;
    case Qt::Key_L:
        if (m_renderer.data() && !m_renderer.data()->isFinished())
            setFollowLive(true);
        return;
    case Qt::Key_Escape:
        m_selectedViolation = -1;
        clearCursor();
        viewport()->update();
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

void TimelineView::leaveEvent(QEvent *event)
{
    if (m_hoverLane != -1) {
        m_hoverLane = -1;
        viewport()->update();
    }
    QAbstractScrollArea::leaveEvent(event);
}

void TimelineView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange
        || event->type() == QEvent::StyleChange) {
        m_renderer.setPalette(TimelinePalette::forPalette(palette()));
        viewport()->update();
    } else if (event->type() == QEvent::FontChange) {
        m_renderer.setFont(font());
        viewport()->update();
    }
    QAbstractScrollArea::changeEvent(event);
}

bool TimelineView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const TimelineRenderer::Hit hit = m_renderer.hitTest(help->pos(), currentView());
        if (hit.html.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), hit.html, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

QSize TimelineView::exportSize(int width) const
{
    return QSize(width,
                 TimelineRenderer::kRulerHeight + m_renderer.contentHeight()
                     + TimelineLegendPainter::height(width, font(), data() && data()->hasRounds()) + 8);
}

void TimelineView::paintExport(QPainter &painter, const QSize &size) const
{
    TimelineRenderer renderer = m_renderer; // same lanes and colours, whole run
    TimelineRenderer::View view;
    view.startUs = 0;
    view.endUs = totalUs();
    view.cursorUs = m_cursorUs;
    view.selectedViolation = m_selectedViolation;
    const bool votes = data() && data()->hasRounds();
    const int legend = TimelineLegendPainter::height(size.width(), font(), votes);
    view.rect = QRect(0, 0, size.width(), size.height() - legend - 8);
    renderer.paint(painter, view);
    const QRect legendRect(0, view.rect.bottom() + 1, size.width(), legend + 8);
    painter.fillRect(legendRect, renderer.palette().background);
    TimelineLegendPainter::paint(painter, legendRect.adjusted(4, 4, -4, 0), renderer.palette(), font(),
                                 votes);
}
