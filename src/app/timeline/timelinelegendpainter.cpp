// TimelineLegendPainter: one list of entries lays out both the measuring and the painting, so the height it
// reports is always the height it paints.
#include "timelinelegendpainter.h"

#include "timelineshapes.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>

#include <cmath>
#include <functional>

using namespace TimelineShapes;

namespace {
// The legend's entries in order; one list for both measuring and painting, so the height always fits.
enum class LegendMark {
    Waiting,
    Holding,
    Stale,
    Renewal,
    TtlLeft,
    ReadWrite,
    Paused,
    Crashed,
    LostUpdate,
    Overlap,
    Votes,
    Step,
    Fault
};

QList<std::pair<LegendMark, QString>> legendEntries(bool votes)
{
    QList<std::pair<LegendMark, QString>> entries {
        {LegendMark::Waiting, QObject::tr("waiting")},
        {LegendMark::Holding, QObject::tr("holding")},
        {LegendMark::Stale, QObject::tr("lease expired, still working")},
        {LegendMark::Renewal, QObject::tr("renewal")},
        {LegendMark::TtlLeft, QObject::tr("TTL left")},
        {LegendMark::ReadWrite, QObject::tr("read / write")},
        {LegendMark::Paused, QObject::tr("paused")},
        {LegendMark::Crashed, QObject::tr("crashed")},
        {LegendMark::LostUpdate, QObject::tr("lost update")},
        {LegendMark::Overlap, QObject::tr("two holders: overlap")},
    };
    if (votes)
        entries.append({LegendMark::Votes, QObject::tr("Redlock votes: yes · no · no answer")});
    entries.append({LegendMark::Step, QObject::tr("story step")});
    entries.append({LegendMark::Fault, QObject::tr("fault")});
    return entries;
}

// Lays the entries out left to right, wrapping at the right edge; calls `place` with each entry's swatch
// rectangle and text rectangle and returns the height used.
double
layoutLegend(const QRectF &rect, const QFontMetricsF &fm, bool votes,
             const std::function<void(LegendMark, const QString &, const QRectF &, const QRectF &)> &place)
{
    const double h = fm.height();
    double x = rect.left() + 6;
    double y = rect.top() + 4;
    for (const auto &[mark, text] : legendEntries(votes)) {
        const double w = 22 + fm.horizontalAdvance(text) + 16;
        if (x + w > rect.right() - 4 && x > rect.left() + 6) {
            x = rect.left() + 6;
            y += h + 6;
        }
        if (place)
            place(mark, text, QRectF(x, y + 2, 18, h - 4), QRectF(x + 22, y, w, h));
        x += w;
    }
    return y + h + 6 - rect.top();
}
} // namespace

int TimelineLegendPainter::height(int width, const QFont &font, bool votes)
{
    return int(std::ceil(layoutLegend(QRectF(0, 0, width, 0), QFontMetricsF(font), votes, {})));
}

void TimelineLegendPainter::paint(QPainter &p, const QRect &rect, const TimelinePalette &pal, const QFont &font,
                                  bool votes)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setFont(font);
    std::map<LegendMark, std::function<void(const QRectF &)>> swatches;
    const auto item = [&](LegendMark mark, const std::function<void(const QRectF &)> &swatch) {
        swatches[mark] = swatch;
    };
    item(LegendMark::Waiting, [&](const QRectF &s) {
        p.setPen(Qt::NoPen);
        p.setBrush(pal.waiting);
        p.drawRoundedRect(s.adjusted(0, s.height() * 0.3, 0, -s.height() * 0.3), 2, 2);
    });
    item(LegendMark::Holding, [&](const QRectF &s) {
        p.setPen(Qt::NoPen);
        p.setBrush(pal.holding);
        p.drawRoundedRect(s, 2, 2);
    });
    item(LegendMark::Stale, [&](const QRectF &s) {
        p.fillRect(s, withAlpha(pal.stale, 45));
        hatch(p, s, pal.stale, 5, 1.2);
    });
    item(LegendMark::Renewal, [&](const QRectF &s) {
        p.setPen(QPen(pal.renewOk, 2));
        p.drawLine(QPointF(s.center().x(), s.top()), QPointF(s.center().x(), s.bottom()));
    });
    item(LegendMark::TtlLeft, [&](const QRectF &s) {
        p.fillRect(s, pal.holdingLight);
        QPolygonF poly;
        poly << s.bottomLeft() << s.topLeft() << s.bottomRight();
        p.setPen(Qt::NoPen);
        p.setBrush(withAlpha(pal.holding, 215));
        p.drawPolygon(poly);
    });
    item(LegendMark::ReadWrite, [&](const QRectF &s) {
        p.setPen(QPen(pal.holdingEdge, 1.3));
        p.setBrush(pal.background);
        p.drawEllipse(QPointF(s.left() + 4, s.center().y()), 3, 3);
        diamond(p, QPointF(s.right() - 5, s.center().y()), 4, pal.holdingEdge, pal.background);
    });
    item(LegendMark::Paused, [&](const QRectF &s) {
        p.fillRect(s, withAlpha(pal.paused, 90));
        p.setPen(QPen(pal.paused, 2));
        p.drawLine(s.topLeft(), s.topRight());
        p.drawLine(s.bottomLeft(), s.bottomRight());
    });
    item(LegendMark::Crashed, [&](const QRectF &s) {
        p.fillRect(s, withAlpha(pal.crashed, 90));
        hatch(p, s, withAlpha(pal.crashed, 170), 4, 1);
    });
    item(LegendMark::LostUpdate, [&](const QRectF &s) {
        p.setPen(QPen(pal.overlapEdge, 2, Qt::DashLine));
        p.drawLine(QPointF(s.left() + 3, s.center().y()), QPointF(s.right(), s.center().y()));
        cross(p, QPointF(s.left() + 3, s.center().y()), 3, pal.overlapEdge, 2);
    });
    item(LegendMark::Overlap, [&](const QRectF &s) {
        p.fillRect(s, pal.overlap);
        p.setPen(QPen(pal.overlapEdge, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(s);
    });
    item(LegendMark::Step, [&](const QRectF &s) {
        p.setPen(QPen(pal.step, 1.5));
        p.setBrush(pal.step);
        p.drawEllipse(s.center(), s.height() / 2, s.height() / 2);
    });
    item(LegendMark::Fault,
         [&](const QRectF &s) { zigzag(p, QPointF(s.center().x(), s.top()), s.height(), pal.fault); });
    item(LegendMark::Votes, [&](const QRectF &s) {
        // The cells of a won round: granted, refused, no answer.
        TimelineData::Round round;
        round.outcome = HistoryEvent::RoundOutcome::Won;
        round.granted = 0b001;
        round.answered = 0b011;
        voteCells(p, QPointF(s.left() + 1, s.top()), s.height() - 2, 3, round, pal);
    });
    layoutLegend(rect, QFontMetricsF(font), votes,
                 [&](LegendMark mark, const QString &text, const QRectF &swatch, const QRectF &label) {
                     swatches.at(mark)(swatch);
                     p.setPen(pal.text);
                     p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, text);
                 });
    p.restore();
}
