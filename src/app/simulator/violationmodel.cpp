// ViolationModel: prefix-preserving updates.
#include "violationmodel.h"
#include "common/textformat.h"

#include "common/timelinepalette.h"
#include "timeline/timelinerenderer.h"

#include <QGuiApplication>
#include <QPalette>

namespace {
bool same(const Violation &a, const Violation &b)
{
    return a.type == b.type && a.lock == b.lock && a.workers == b.workers && a.startUs == b.startUs;
}
} // namespace

ViolationModel::ViolationModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void ViolationModel::setViolations(const QList<Violation> &violations)
{
    qsizetype common = 0;
    while (common < m_violations.size() && common < violations.size()
           && same(m_violations.at(common), violations.at(common)))
        ++common;
    if (common < m_violations.size()) {
        beginResetModel();
        m_violations = violations;
        endResetModel();
        return;
    }
    // Same rows so far: refresh them (an open-ended overlap gets its end) and add the new ones.
    const qsizetype old = m_violations.size();
    for (qsizetype i = 0; i < old; ++i)
        m_violations[i] = violations.at(i);
    if (old > 0)
        emit dataChanged(index(0), index(int(old) - 1));
    if (violations.size() > old) {
        beginInsertRows(QModelIndex(), int(old), int(violations.size()) - 1);
        m_violations = violations;
        endInsertRows();
    }
}

int ViolationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_violations.size());
}

QVariant ViolationModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_violations.size())
        return {};
    const Violation &v = m_violations.at(index.row());
    switch (role) {
    case Qt::DisplayRole: {
        const QString window = v.openEnded
            ? tr("from %1 (still going on)").arg(TextFormat::runTime(v.startUs, 1000))
            : tr("%1 – %2").arg(TextFormat::runTime(v.startUs, 1000),
                                TextFormat::runTime(v.endUs, 1000));
        return tr("%1  ·  %2  ·  %3").arg(Violation::typeName(v.type), window, v.text);
    }
    case Qt::ToolTipRole:
        return tr("%1\nClick to see it on the timeline.").arg(v.text);
    case Qt::ForegroundRole: {
        const TimelinePalette tp = TimelinePalette::forPalette(QGuiApplication::palette());
        return v.type == Violation::Type::FencingRejection ? tp.fenced : tp.stale;
    }
    case StartUsRole:
        return v.startUs;
    case EndUsRole:
        return v.endUs;
    case TypeRole:
        return Violation::typeName(v.type);
    default:
        return {};
    }
}
