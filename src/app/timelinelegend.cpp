// TimelineLegend: paints the renderer's legend with the widget's palette.
#include "timelinelegend.h"

#include "timelinerenderer.h"

#include <QPainter>

TimelineLegend::TimelineLegend(QWidget *parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

int TimelineLegend::heightForWidth(int width) const
{
    return TimelineRenderer::legendHeight(width, font(), m_votes);
}

QSize TimelineLegend::sizeHint() const
{
    return QSize(800, heightForWidth(width() > 0 ? width() : 800));
}

void TimelineLegend::setShowsVotes(bool votes)
{
    if (votes == m_votes)
        return;
    m_votes = votes;
    setFixedHeight(heightForWidth(width()));
    update();
}

void TimelineLegend::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    setFixedHeight(heightForWidth(width()));
}

void TimelineLegend::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const TimelinePalette palette = TimelinePalette::forPalette(this->palette());
    TimelineRenderer::paintLegend(painter, rect(), palette, font(), m_votes);
}
