// TimelineLegend: paints the renderer's legend with the widget's palette.
#include "timelinelegend.h"
#include "timelinelegendpainter.h"

#include "timelinerenderer.h"

#include <QPainter>

TimelineLegend::TimelineLegend(QWidget *parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

int TimelineLegend::heightForWidth(int width) const
{
    return TimelineLegendPainter::height(width, font(), m_votes);
}

// The width to lay the legend out for: its own once shown. Before that a child widget is 100 px wide, and a
// legend wrapped to 100 px asked for 244 px of height, which made the whole window taller than a 700 px
// screen until the Simulator had been shown once.
int TimelineLegend::layoutWidth() const
{
    return isVisible() && width() > 0 ? width() : 800;
}

QSize TimelineLegend::sizeHint() const
{
    return QSize(800, heightForWidth(layoutWidth()));
}

void TimelineLegend::setShowsVotes(bool votes)
{
    if (votes == m_votes)
        return;
    m_votes = votes;
    setFixedHeight(heightForWidth(layoutWidth()));
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
    TimelineLegendPainter::paint(painter, rect(), palette, font(), m_votes);
}
