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
#include <bit>
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
    reserveIndex();
}

void LockTableModel::reserveIndex()
{
    // Growing a QHash re-hashes every key at once: with 65,000 locks that alone would block the GUI thread
    // for tens of milliseconds in the middle of a scan. Room for kReservedLocks up front costs ~0.5 MB.
    m_rowOf.reserve(kReservedLocks);
}

int LockTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_records.size());
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
    return LockKinds::label(record.kind);
}

QVariant LockTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_records.size())
        return {};
    const LockRecord &r = m_records.at(index.row());
    switch (role) {
    case KeyRole:
        return r.key;
    case KindRole:
        return int(r.kind);
    case DeadlineRole:
        return r.pttlMs >= 0 ? r.deadlineMs() : r.pttlMs;
    case LeaseRole:
        return m_leases.at(index.row());
    case NowRole:
        return clockMs();
    case DiagnosisCodesRole: {
        QStringList codes;
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        return codes;
    }
    case SearchTextRole:
        return QStringList {Bytes::displayName(r.key, 400), r.ownerSummary(), LockKinds::name(r.kind), r.library}
            .join(u'\n');
    default:
        break;
    }

    switch (index.column()) {
    case KeyColumn:
        if (role == Qt::DisplayRole || role == SortRole) {
            QString text = Bytes::displayName(r.key, 200);
            if (!r.groupKeys.isEmpty() && role == Qt::DisplayRole)
                text += QStringLiteral("  (+%1 keys)").arg(r.groupKeys.size());
            return text;
        }
        if (role == Qt::ToolTipRole)
            return r.groupKeys.isEmpty()
                ? Bytes::displayName(r.key, 1000)
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
            return InspectFormat::ttl(r.remainingMs(clockMs()));
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
    case NodeColumn:
        if (role == Qt::DisplayRole)
            return r.node;
        if (role == SortRole) // grouped by node, by slot within a node
            return QStringLiteral("%1 %2").arg(r.node).arg(r.slot, 5, 10, QLatin1Char('0'));
        if (role == Qt::ToolTipRole && !r.node.isEmpty())
            return QStringLiteral("On the cluster master %1, slot %2").arg(r.node).arg(r.slot);
        break;
    default:
        break;
    }
    if (role == Qt::ForegroundRole && (!r.exists() || isFrozen()))
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
    case NodeColumn:
        return tr("Node");
    default:
        return {};
    }
}

int LockTableModel::changedColumns(const LockRecord &a, qint64 leaseA, const LockRecord &b, qint64 leaseB)
{
    if (a.exists() != b.exists())
        return (1 << ColumnCount) - 1; // the row's colour changes
    int mask = 0;
    if (a.key != b.key || a.groupKeys != b.groupKeys)
        mask |= 1 << KeyColumn;
    if (a.kind != b.kind || a.library != b.library || a.reason != b.reason)
        mask |= 1 << KindColumn;
    if (a.owners != b.owners || a.rwMode != b.rwMode)
        mask |= 1 << OwnerColumn;
    const bool ttlSame = (a.pttlMs < 0 || b.pttlMs < 0) ? a.pttlMs == b.pttlMs
                                                        : std::abs(a.deadlineMs() - b.deadlineMs()) <= 5;
    if (!ttlSame || leaseA != leaseB)
        mask |= 1 << TtlColumn;
    if (a.waiters() != b.waiters() || a.subscribers != b.subscribers || a.queueLength != b.queueLength)
        mask |= 1 << WaitersColumn;
    if (a.diagnoses != b.diagnoses)
        mask |= 1 << ProblemsColumn;
    if (a.node != b.node || a.slot != b.slot)
        mask |= 1 << NodeColumn;
    return mask;
}

namespace {

// Another owner (or none, then one): a new tenure, whose lease is its own and not its predecessor's.
bool sameHolders(const LockRecord &a, const LockRecord &b)
{
    if (!a.exists() || !b.exists() || a.owners.size() != b.owners.size())
        return false;
    QList<QByteArray> left, right;
    for (const LockOwner &o : a.owners)
        left << o.id;
    for (const LockOwner &o : b.owners)
        right << o.id;
    std::sort(left.begin(), left.end());
    std::sort(right.begin(), right.end());
    return left == right;
}

} // namespace

void LockTableModel::upsert(const QList<LockRecord> &records)
{
    QList<QPair<int, int>> changed; // row, changed columns
    QList<LockRecord> added;
    QHash<QByteArray, qsizetype> addedAt;
    for (const LockRecord &r : records) {
        const int row = m_rowOf.value(r.key, -1);
        if (row >= 0) {
            // The highest TTL seen is the lease, for this holder's tenure only: a new owner starts again (the
            // bar read "55.6 s of 14 min 51 s" under the old lock's maximum).
            const qint64 lease
                = sameHolders(m_records.at(row), r) ? std::max(m_leases.at(row), r.pttlMs) : r.pttlMs;
            const int mask = changedColumns(m_records.at(row), m_leases.at(row), r, lease);
            m_records[row] = r; // details (companions, raw data) may differ even when no column does
            m_leases[row] = lease;
            if (mask)
                changed.append({row, mask});
            continue;
        }
        const auto again = addedAt.constFind(r.key);
        if (again != addedAt.constEnd()) {
            added[*again] = r;
            continue;
        }
        addedAt.insert(r.key, added.size());
        added.append(r);
    }
    // One dataChanged per run of adjacent rows, spanning only the columns that changed in it.
    std::sort(changed.begin(), changed.end());
    for (qsizetype i = 0; i < changed.size();) {
        qsizetype j = i;
        int mask = changed.at(i).second;
        while (j + 1 < changed.size() && changed.at(j + 1).first == changed.at(j).first + 1)
            mask |= changed.at(++j).second;
        const int left = std::countr_zero(unsigned(mask));
        const int right = 31 - std::countl_zero(unsigned(mask));
        emit dataChanged(index(changed.at(i).first, left), index(changed.at(j).first, right));
        i = j + 1;
    }
    if (added.isEmpty())
        return;
    const int first = int(m_records.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    for (const LockRecord &r : std::as_const(added)) {
        m_rowOf.insert(r.key, int(m_records.size()));
        m_records.append(r);
        m_leases.append(r.pttlMs);
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
            m_rowOf.remove(m_records.at(row).key);
        m_records.remove(it->first, it->second - it->first + 1);
        m_leases.remove(it->first, it->second - it->first + 1);
        endRemoveRows();
    }
    reindex(ranges.first().first);
}

QList<QByteArray> LockTableModel::retainOnly(const QSet<QByteArray> &keys)
{
    QList<QByteArray> gone;
    for (const LockRecord &r : std::as_const(m_records)) {
        if (!keys.contains(r.key))
            gone.append(r.key);
    }
    remove(gone);
    return gone;
}

void LockTableModel::setFrozenAt(qint64 monotonicMs)
{
    if (monotonicMs == m_frozenAtMs)
        return;
    m_frozenAtMs = monotonicMs;
    if (!m_records.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_records.size()) - 1, ColumnCount - 1),
                         {Qt::DisplayRole, Qt::ForegroundRole, NowRole});
}

qint64 LockTableModel::clockMs() const
{
    return m_frozenAtMs >= 0 ? m_frozenAtMs : InspectClock::monotonicMs();
}

QByteArray LockTableModel::csv(const QList<LockRecord> &records)
{
    const auto field = [](QString text) {
        if (text.contains(u',') || text.contains(u'"') || text.contains(u'\n') || text.contains(u'\r'))
            text = u'"' + text.replace(u'"', QStringLiteral("\"\"")) + u'"';
        return text;
    };
    // Exact text where the bytes are text (a script must find the real key); escaped like redis-cli otherwise.
    const auto bytes = [](const QByteArray &b) {
        return Bytes::isPrintableUtf8(b) ? QString::fromUtf8(b) : Bytes::display(b, 1 << 20);
    };
    const qint64 now = InspectClock::monotonicMs();
    // ttl_ms is a number or empty, so that a spreadsheet can compute with the column; what the number cannot
    // say (no TTL, the key is gone, unknown) is ttl_state's.
    QStringList lines {
        QStringLiteral("key,kind,library,format,owners,ttl_ms,ttl_state,waiters,diagnoses,node")};
    for (const LockRecord &r : records) {
        QStringList owners;
        for (const LockOwner &o : r.owners)
            owners << bytes(o.id);
        QStringList codes;
        for (const LockDiagnosis &d : r.diagnoses)
            codes << d.code;
        // Unknown stays empty (not 0 or -1): a spreadsheet must not sum an unknown as a value.
        const qint64 ttl = r.remainingMs(now);
        const QString ttlText = ttl >= 0 ? QString::number(ttl) : QString();
        const QString ttlState = ttl >= 0 ? QStringLiteral("expires")
            : ttl == -1                   ? QStringLiteral("no-ttl")
            : ttl == -2                   ? QStringLiteral("gone")
                                          : QStringLiteral("unknown");
        const QString waiters = r.waiters() >= 0 ? QString::number(r.waiters()) : QString();
        lines << QStringList {field(bytes(r.key)),
                              field(LockKinds::name(r.kind)),
                              field(r.library),
                              field(r.format),
                              field(owners.join(u' ')),
                              ttlText,
                              ttlState,
                              waiters,
                              field(codes.join(u' ')),
                              field(r.node)}
                     .join(u',');
    }
    return (lines.join(QStringLiteral("\r\n")) + QStringLiteral("\r\n")).toUtf8();
}

void LockTableModel::clear()
{
    if (m_records.isEmpty())
        return;
    beginResetModel();
    m_records.clear();
    m_leases.clear();
    m_rowOf.clear();
    reserveIndex();
    endResetModel();
}

const LockRecord *LockTableModel::find(const QByteArray &key) const
{
    const int row = rowOf(key);
    return row >= 0 ? &m_records.at(row) : nullptr;
}

QList<LockRecord> LockTableModel::records() const
{
    return m_records;
}

void LockTableModel::reindex(int from)
{
    for (int row = from; row < m_records.size(); ++row)
        m_rowOf.insert(m_records.at(row).key, row);
}
