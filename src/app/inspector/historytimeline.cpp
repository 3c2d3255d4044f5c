// HistoryTimeline: the axis spans the events seen (at least 30 s, at most the last 10 min) up to now.
#include "historytimeline.h"

#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"

#include <QPainter>

#include <algorithm>

HistoryTimeline::HistoryTimeline(QWidget *parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void HistoryTimeline::setEvents(const QList<LockEvent> &events)
{
    m_events = events;
    update();
}

QSize HistoryTimeline::sizeHint() const
{
    return {320, 58};
}

QSize HistoryTimeline::minimumSizeHint() const
{
    return {160, 58};
}

QColor HistoryTimeline::colorOf(LockEvent::Type type)
{
    switch (type) {
    case LockEvent::Type::Seen:
        return QColor(0x90, 0x90, 0x90);
    case LockEvent::Type::Acquired:
        return QColor(0x2e, 0x7d, 0x32);
    case LockEvent::Type::Renewed:
        return QColor(0x15, 0x65, 0xc0);
    case LockEvent::Type::Changed:
        return QColor(0x6a, 0x1b, 0x9a);
    case LockEvent::Type::Released:
        return QColor(0xef, 0x6c, 0x00);
    case LockEvent::Type::Expired:
        return QColor(0xc6, 0x28, 0x28);
    case LockEvent::Type::Lost:
        return QColor(0x60, 0x60, 0x60);
    }
    return Qt::gray;
}

void HistoryTimeline::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const qint64 now = InspectClock::monotonicMs();
    qint64 start = now - 30'000;
    if (!m_events.isEmpty())
        start = std::min(start, m_events.first().atMs);
    start = std::max(start, now - 600'000);
    const qint64 span = std::max<qint64>(1, now - start);
    const QRect area = rect().adjusted(8, 6, -8, -20);
    const int axisY = area.center().y();
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawLine(area.left(), axisY, area.right(), axisY);
    const auto xOf
        = [&](qint64 t) { return area.left() + int(double(t - start) / double(span) * area.width()); };
    for (const LockEvent &e : m_events) {
        if (e.atMs < start)
            continue;
        const int x = xOf(e.atMs);
        const QColor c = colorOf(e.type);
        p.setPen(QPen(c, 2));
        p.setBrush(c);
        switch (e.type) {
        case LockEvent::Type::Renewed:
            p.drawLine(x, axisY - 9, x, axisY + 9);
            break;
        case LockEvent::Type::Expired:
            p.drawLine(x - 5, axisY - 5, x + 5, axisY + 5);
            p.drawLine(x - 5, axisY + 5, x + 5, axisY - 5);
            break;
        case LockEvent::Type::Seen:
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(QPoint(x, axisY), 5, 5);
            break;
        default:
            p.drawEllipse(QPoint(x, axisY), 5, 5);
            break;
        }
    }
    p.setPen(palette().color(QPalette::PlaceholderText));
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    const QRect labels(area.left(), area.bottom() + 4, area.width(), 14);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("−%1").arg(InspectFormat::duration(span)));
    p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, tr("now"));
    if (m_events.isEmpty())
        p.drawText(area, Qt::AlignCenter, tr("no events yet"));
}
