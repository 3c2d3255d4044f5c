// EventLogModel: an index over TimelineData::events() with the filters applied.
#include "eventlogmodel.h"

#include "timeline/timelinerenderer.h"

#include <QIODevice>

EventLogModel::EventLogModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void EventLogModel::setRun(const TimelineData *data, TextLookup lookup)
{
    beginResetModel();
    m_data = data;
    m_lookup = std::move(lookup);
    m_rows.clear();
    m_scanned = 0;
    if (m_data) {
        const QList<HistoryEvent> &events = m_data->events();
        for (; m_scanned < events.size(); ++m_scanned) {
            if (accepts(events.at(m_scanned)))
                m_rows.append(quint32(m_scanned));
        }
    }
    endResetModel();
}

void EventLogModel::refresh()
{
    if (!m_data)
        return;
    const QList<HistoryEvent> &events = m_data->events();
    QList<quint32> added;
    for (; m_scanned < events.size(); ++m_scanned) {
        if (accepts(events.at(m_scanned)))
            added.append(quint32(m_scanned));
    }
    if (added.isEmpty())
        return;
    beginInsertRows(QModelIndex(), int(m_rows.size()), int(m_rows.size() + added.size() - 1));
    m_rows += added;
    endInsertRows();
}

void EventLogModel::setFilter(int worker, int lock, int kind)
{
    if (worker == m_worker && lock == m_lock && kind == m_kind)
        return;
    m_worker = worker;
    m_lock = lock;
    m_kind = kind;
    setRun(m_data, m_lookup);
}

void EventLogModel::setUntil(qint64 timeUs)
{
    if (timeUs == m_until)
        return;
    m_until = timeUs;
    setRun(m_data, m_lookup);
}

bool EventLogModel::accepts(const HistoryEvent &e) const
{
    if (m_until != TimelineData::kOpen && e.timeUs > m_until)
        return false;
    if (m_kind >= 0 && int(e.kind) != m_kind)
        return false;
    if (m_lock >= 0 && e.lock != m_lock)
        return false;
    if (m_worker >= 0) {
        if (e.worker == m_worker)
            return true;
        // Faults of the worker's process concern it too (pauses, crashes, delays).
        const int process = m_data->layout().workerProcesses.value(m_worker, -2);
        return e.worker < 0 && e.kind == HistoryEvent::Kind::Fault && e.process == process;
    }
    return true;
}

int EventLogModel::rowAtTime(qint64 timeUs) const
{
    if (!m_data)
        return -1;
    const QList<HistoryEvent> &events = m_data->events();
    const auto it = std::partition_point(m_rows.begin(), m_rows.end(),
                                         [&](quint32 i) { return events.at(i).timeUs < timeUs; });
    if (it == m_rows.end())
        return m_rows.isEmpty() ? -1 : int(m_rows.size()) - 1;
    return int(it - m_rows.begin());
}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return tr("Time");
    case Worker:
        return tr("Worker");
    case Lock:
        return tr("Lock");
    case Kind:
        return tr("Kind");
    case Phase:
        return tr("Phase");
    case Outcome:
        return tr("Outcome");
    case Value:
        return tr("Value");
    case Token:
        return tr("Token");
    case Commands:
        return tr("Cmds");
    case Detail:
        return tr("Detail");
    default:
        return {};
    }
}

QString EventLogModel::workerText(const HistoryEvent &e) const
{
    if (e.worker >= 0)
        return m_data->layout().workers.value(e.worker, QString::number(e.worker));
    if (e.process >= 0)
        return m_data->layout().processes.value(e.process, QString::number(e.process));
    return QStringLiteral("—");
}

QString EventLogModel::outcomeText(const HistoryEvent &e) const
{
    switch (e.kind) {
    case HistoryEvent::Kind::Release:
        return e.phase == HistoryEvent::Phase::Invoke
            ? QString()
            : HistoryEvent::releaseOutcomeName(HistoryEvent::ReleaseOutcome(e.outcome));
    case HistoryEvent::Kind::Fault:
        if (HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::StoryStep) {
            // Numbered as the banner and the narrative number them (from 1), not by the scenario's index.
            const int number = m_data->stepNumber(int(e.value));
            return number > 0 ? tr("step %1").arg(number) : tr("unnarrated step");
        }
        return HistoryEvent::faultName(HistoryEvent::FaultType(e.outcome));
    case HistoryEvent::Kind::Write:
        if (HistoryEvent::WriteOutcome(e.outcome) == HistoryEvent::WriteOutcome::FencedOut)
            return tr("fenced out");
        return e.phase == HistoryEvent::Phase::Ok ? tr("applied") : QString();
    case HistoryEvent::Kind::Acquire:
        if (HistoryEvent::AcquireOutcome(e.outcome) == HistoryEvent::AcquireOutcome::Stopped)
            return tr("stopped");
        // Redlock: how many servers granted the round that decided it.
        return e.isCompletion() && e.hasVotes() ? e.quorumText(m_data->serverCount()) : QString();
    case HistoryEvent::Kind::Round:
        // "won · 3/5 · validity 2.8 s", "2/5 · no quorum (needs 3)", "3/5 · validity spent (-5 ms)"
        return (HistoryEvent::RoundOutcome(e.outcome) == HistoryEvent::RoundOutcome::Won ? tr("won · ")
                                                                                         : QString())
            + e.quorumText(m_data->serverCount());
    default:
        return QString();
    }
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !index.isValid() || index.row() >= m_rows.size())
        return {};
    const quint32 eventIndex = m_rows.at(index.row());
    const HistoryEvent &e = m_data->events().at(eventIndex);
    if (role == TimeUsRole)
        return e.timeUs;
    if (role == EventIndexRole)
        return int(eventIndex);
    if (role == Qt::TextAlignmentRole) {
        const int c = index.column();
        if (c == Time || c == Value || c == Token || c == Commands)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Time:
        return QString::number(double(e.timeUs) / 1e6, 'f', 6);
    case Worker:
        return workerText(e);
    case Lock:
        return e.lock >= 0 ? m_data->layout().locks.value(e.lock, QString::number(e.lock)) : QString();
    case Kind:
        // A story's step is recorded as a fault event (it may carry one out) but is not a fault.
        if (e.kind == HistoryEvent::Kind::Fault
            && HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::StoryStep)
            return tr("story step");
        return HistoryEvent::kindName(e.kind);
    case Phase:
        // Knossos's "info": nobody knows whether it happened (no reply came, or an error that may have
        // come after the command took effect). Said in words here; the CSV keeps the history's term.
        return e.phase == HistoryEvent::Phase::Info ? tr("unknown") : HistoryEvent::phaseName(e.phase);
    case Outcome:
        return outcomeText(e);
    case Value:
        if (e.kind == HistoryEvent::Kind::Fault
            && HistoryEvent::FaultType(e.outcome) == HistoryEvent::FaultType::StoryStep) {
            const int number = m_data->stepNumber(int(e.value));
            return number > 0 ? QVariant(number) : QVariant();
        }
        return e.kind == HistoryEvent::Kind::Enter || e.kind == HistoryEvent::Kind::Exit ? QVariant()
                                                                                         : QVariant(e.value);
    case Token:
        return e.token != 0 ? QVariant(e.token) : QVariant();
    case Commands:
        return e.commands != 0 ? QVariant(int(e.commands)) : QVariant();
    case Detail: {
        QString detail = m_lookup ? m_lookup(e) : QString();
        if (e.kind == HistoryEvent::Kind::Round) {
            const QString votes
                = tr("votes %1").arg(QString::fromLatin1(e.votePattern(m_data->serverCount())));
            detail = detail.isEmpty() ? votes : votes + QStringLiteral("; ") + detail;
        }
        return detail;
    }
    default:
        return {};
    }
}

qint64 EventLogModel::writeCsv(QIODevice &out) const
{
    const auto quote = [](QString s) {
        if (s.contains(u',') || s.contains(u'"') || s.contains(u'\n'))
            s = u'"' + s.replace(u'"', QStringLiteral("\"\"")) + u'"';
        return s;
    };
    QStringList header;
    for (int c = 0; c < ColumnCount; ++c)
        header << headerData(c, Qt::Horizontal).toString().toLower();
    out.write(header.join(u',').toUtf8() + '\n');
    qint64 rows = 0;
    for (int r = 0; r < m_rows.size(); ++r) {
        QStringList cells;
        for (int c = 0; c < ColumnCount; ++c)
            cells << quote(data(index(r, c)).toString());
        if (out.write(cells.join(u',').toUtf8() + '\n') < 0)
            return -1;
        ++rows;
    }
    return rows;
}
