// Paints the TTL cell as a bar that drains between readings: full at the highest TTL seen, green, then amber,
// then red; "no TTL" in red. The text is computed at paint time, so the countdown needs no model signals.
#pragma once

#include <QStyledItemDelegate>

class TtlBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit TtlBarDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The part of the bar still full, 0..1, for a lock expiring at `deadlineMs` with `leaseMs` as full
    // length.
    static double fraction(qint64 deadlineMs, qint64 leaseMs, qint64 nowMs);
};
