// LockTableModel: rows keep their order of arrival; the proxy sorts. Changed rows are grouped into runs so a
// refresh of many rows costs few signals.
#include "locktablemodel.h"

#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "redis/bytes.h"

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <limits>

namespace {

// Runs of consecutive numbers in a sorted list: [first, last] pairs.
QList<QPair<int, int>> runs(QList<int> rows)
{
    std::sort(rows.begin(), rows.end());
    QList<QPair<int, int>> out;
    for (int row : rows) {
        if (!out.isEmpty() && out.last().second + 1 == row)
            out.last().second = row;
        else if (out.isEmpty() || out.last().second != row)
            out.append({row, row});
    }
    return out;
}

QString waitersText(const LockRecord &r)
{
    const qint64 w = r.waiters();
    if (w < 0)
        return QStringLiteral("?");
    return QString::number(w);
}

} // namespace

LockTableModel::LockTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

int LockTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LockTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int LockTableModel::severity(const LockRecord &record)
{
    int score = 0;
    for (const LockDiagnosis &d : record.diagnoses) {
        if (d.code == QLatin1String("malformed") || d.code == QLatin1String("no-ttl")
            || d.code == QLatin1String("watchdog-stalled"))
            score += 100;
        else if (d.code == QLatin1String("orphan-queue") || d.code == QLatin1String("ttl-above-threshold"))
            score += 10;
        else
            score += 1;
    }
    return score;
}

QString LockTableModel::kindText(const LockRecord &record)
{
    return LockKinds::name(record.kind);
}

QVariant LockTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const LockRecord &r = row.record;
    switch (role) {
    case KeyRole:
        return r.key;
    case KindRole:
        return int(r.kind);
    case DeadlineRole:
        return r.pttlMs >= 0 ? r.deadlineMs() : r.pttlMs;
    case LeaseRole:
        return row.lease;
    case DiagnosisCodesRole: {
        QStringList codes;
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        return codes;
    }
    case SearchTextRole:
        return QStringList {Bytes::display(r.key, 400), r.ownerSummary(), LockKinds::name(r.kind), r.library}
            .join(u'\n');
    default:
        break;
    }

    switch (index.column()) {
    case KeyColumn:
        if (role == Qt::DisplayRole || role == SortRole) {
            QString text = Bytes::display(r.key, 200);
            if (!r.groupKeys.isEmpty() && role == Qt::DisplayRole)
                text += QStringLiteral("  (+%1 keys)").arg(r.groupKeys.size());
            return text;
        }
        if (role == Qt::ToolTipRole)
            return r.groupKeys.isEmpty()
                ? Bytes::display(r.key, 1000)
                : QStringLiteral("One lock on %1 keys (the same value on each)").arg(r.memberKeys().size());
        break;
    case KindColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return kindText(r);
        if (role == Qt::ToolTipRole)
            return QStringLiteral("%1 — %2").arg(r.library, r.reason);
        break;
    case OwnerColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return r.ownerSummary();
        if (role == Qt::ToolTipRole && !r.owners.isEmpty()) {
            QStringList lines;
            for (const LockOwner &o : r.owners)
                lines << Bytes::display(o.id, 120)
                        + (o.count >= 0 ? QStringLiteral(" ×%1").arg(o.count) : QString());
            return lines.join(u'\n');
        }
        break;
    case TtlColumn:
        if (role == Qt::DisplayRole)
            return InspectFormat::ttl(r.remainingMs(InspectClock::monotonicMs()));
        if (role == SortRole)
            // By expiry time, which does not change between readings: no TTL sorts after every TTL.
            return r.pttlMs >= 0 ? r.deadlineMs() : std::numeric_limits<qint64>::max() + r.pttlMs;
        if (role == Qt::ToolTipRole)
            return r.pttlMs == -1 ? QStringLiteral("No TTL: it never expires on its own")
                                  : QStringLiteral("TTL as last read; counts down between readings");
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case WaitersColumn:
        if (role == Qt::DisplayRole)
            return waitersText(r);
        if (role == SortRole)
            return r.waiters();
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ToolTipRole)
            return r.waiters() < 0
                ? QStringLiteral("Unknown: clients of this library poll instead of subscribing")
                : QStringLiteral("%1 subscribed to its channel, %2 queued")
                      .arg(std::max<qint64>(r.subscribers, 0))
                      .arg(std::max<qint64>(r.queueLength, 0));
        break;
    case ProblemsColumn:
        if (role == Qt::DisplayRole) {
            QStringList codes;
            for (const LockDiagnosis &d : r.diagnoses)
                codes << d.code;
            return codes.join(QStringLiteral(", "));
        }
        if (role == SortRole)
            return severity(r);
        if (role == Qt::ToolTipRole) {
            QStringList texts;
            for (const LockDiagnosis &d : r.diagnoses)
                texts << d.text;
            return texts.join(u'\n');
        }
        if (role == Qt::ForegroundRole && severity(r) >= 100)
            return QColor(0xc6, 0x28, 0x28);
        break;
    default:
        break;
    }
    if (role == Qt::ForegroundRole && !r.exists())
        return QGuiApplication::palette().color(QPalette::PlaceholderText);
    return {};
}

QVariant LockTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn:
        return tr("Key");
    case KindColumn:
        return tr("Kind");
    case OwnerColumn:
        return tr("Owner");
    case TtlColumn:
        return tr("TTL");
    case WaitersColumn:
        return tr("Waiters");
    case ProblemsColumn:
        return tr("Diagnoses");
    default:
        return {};
    }
}

void LockTableModel::upsert(const QList<LockRecord> &records)
{
    QList<int> changed;
    QList<Row> added;
    QHash<QByteArray, int> addedAt;
    for (const LockRecord &r : records) {
        const int row = m_rowOf.value(r.key, -1);
        if (row >= 0) {
            Row &existing = m_rows[row];
            existing.lease = std::max(existing.lease, r.pttlMs);
            if (!existing.record.sameContent(r))
                changed.append(row);
            existing.record = r;
            continue;
        }
        const auto again = addedAt.constFind(r.key);
        if (again != addedAt.constEnd()) {
            added[*again].record = r;
            continue;
        }
        addedAt.insert(r.key, int(added.size()));
        added.append({r, r.pttlMs});
    }
    for (const auto &[first, last] : runs(changed))
        emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
    if (added.isEmpty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    for (const Row &row : added) {
        m_rowOf.insert(row.record.key, int(m_rows.size()));
        m_rows.append(row);
    }
    endInsertRows();
}

void LockTableModel::remove(const QList<QByteArray> &keys)
{
    QList<int> rows;
    for (const QByteArray &key : keys) {
        const int row = m_rowOf.value(key, -1);
        if (row >= 0)
            rows.append(row);
    }
    if (rows.isEmpty())
        return;
    const auto ranges = runs(rows);
    // From the end, so earlier row numbers stay valid.
    for (auto it = ranges.crbegin(); it != ranges.crend(); ++it) {
        beginRemoveRows({}, it->first, it->second);
        for (int row = it->first; row <= it->second; ++row)
            m_rowOf.remove(m_rows.at(row).record.key);
        m_rows.remove(it->first, it->second - it->first + 1);
        endRemoveRows();
    }
    reindex(ranges.first().first);
}

QList<QByteArray> LockTableModel::retainOnly(const QSet<QByteArray> &keys)
{
    QList<QByteArray> gone;
    for (const Row &row : std::as_const(m_rows)) {
        if (!keys.contains(row.record.key))
            gone.append(row.record.key);
    }
    remove(gone);
    return gone;
}

void LockTableModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginResetModel();
    m_rows.clear();
    m_rowOf.clear();
    endResetModel();
}

const LockRecord *LockTableModel::find(const QByteArray &key) const
{
    const int row = rowOf(key);
    return row >= 0 ? &m_rows.at(row).record : nullptr;
}

QList<LockRecord> LockTableModel::records() const
{
    QList<LockRecord> out;
    out.reserve(m_rows.size());
    for (const Row &row : m_rows)
        out.append(row.record);
    return out;
}

void LockTableModel::reindex(int from)
{
    for (int row = from; row < m_rows.size(); ++row)
        m_rowOf.insert(m_rows.at(row).record.key, row);
}
