// TtlBarDelegate: the bar is drawn under the text, inside the cell's margins.
#include "ttlbardelegate.h"

#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "locktablemodel.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

TtlBarDelegate::TtlBarDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

double TtlBarDelegate::fraction(qint64 deadlineMs, qint64 leaseMs, qint64 nowMs)
{
    if (deadlineMs < 0 || leaseMs <= 0)
        return 0;
    return std::clamp(double(deadlineMs - nowMs) / double(leaseMs), 0.0, 1.0);
}

void TtlBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                           const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const qint64 now = index.data(LockTableModel::NowRole).toLongLong(); // stops while not live
    const qint64 deadline = index.data(LockTableModel::DeadlineRole).toLongLong();
    const qint64 lease = index.data(LockTableModel::LeaseRole).toLongLong();
    opt.text.clear();
    QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const QRect cell = opt.rect.adjusted(3, 3, -3, -3);
    QString text;
    QColor textColor
        = opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text);
    painter->save();
    if (deadline >= 0) {
        const double f = fraction(deadline, lease, now);
        const bool stale = index.data(Qt::ForegroundRole).isValid(); // grey row: not a live reading
        const QColor bar = stale ? QColor(0x9e, 0x9e, 0x9e)
            : f > 0.5            ? QColor(0x43, 0xa0, 0x47)
            : f > 0.2              ? QColor(0xf9, 0xa8, 0x25)
                                   : QColor(0xe5, 0x39, 0x35);
        QRect filled = cell;
        filled.setWidth(int(cell.width() * f));
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(bar.red(), bar.green(), bar.blue(), 70));
        painter->drawRoundedRect(cell, 3, 3);
        painter->setBrush(QColor(bar.red(), bar.green(), bar.blue(), 170));
        painter->drawRoundedRect(filled, 3, 3);
        text = InspectFormat::ttl(std::max<qint64>(0, deadline - now));
    } else {
        text = InspectFormat::ttl(deadline);
        if (deadline == -1)
            textColor = QColor(0xc6, 0x28, 0x28);
    }
    painter->setPen(textColor);
    painter->drawText(cell.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, text);
    painter->restore();
}

QSize TtlBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(
        std::max(size.width(), option.fontMetrics.horizontalAdvance(QStringLiteral("00 min 00 s")) + 24));
    return size;
}
