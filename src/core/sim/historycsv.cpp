// HistoryCsv: RFC 4180 quoting for the free-text columns.
#include "historycsv.h"

#include "simulation.h"

#include <QIODevice>

namespace HistoryCsv {

static QByteArray quoted(const QByteArray &field)
{
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n') && !field.contains('\r'))
        return field;
    QByteArray out = field;
    out.replace('"', "\"\"");
    return '"' + out + '"';
}

static QString outcomeName(const HistoryEvent &e)
{
    switch (e.kind) {
    case HistoryEvent::Kind::Release:
        return HistoryEvent::releaseOutcomeName(HistoryEvent::ReleaseOutcome(e.outcome));
    case HistoryEvent::Kind::Fault:
        return HistoryEvent::faultName(HistoryEvent::FaultType(e.outcome));
    case HistoryEvent::Kind::Write:
        return e.outcome == quint8(HistoryEvent::WriteOutcome::FencedOut) ? QStringLiteral("fenced-out")
                                                                          : QString();
    case HistoryEvent::Kind::Round:
        return HistoryEvent::roundOutcomeName(HistoryEvent::RoundOutcome(e.outcome));
    default:
        return {};
    }
}

QByteArray header()
{
    return "variant,time_us,worker,process,lock,kind,phase,op,token,value,outcome,commands,votes,detail\n";
}

qint64 write(QIODevice &out, const Simulation &simulation, const QString &variant)
{
    const EventHistory *history = simulation.history();
    if (!history)
        return 0;
    const QStringList workers = simulation.workerNames();
    const QStringList processes = simulation.processNames();
    const QStringList locks = simulation.lockNames();
    const int servers = simulation.serverCount();
    qint64 rows = 0;
    QByteArray chunk;
    for (const HistoryEvent &e : history->events()) {
        QByteArrayList f;
        f << quoted(variant.toUtf8()) << QByteArray::number(e.timeUs)
          << quoted(workers.value(e.worker).toUtf8()) << quoted(processes.value(e.process).toUtf8())
          << quoted(locks.value(e.lock).toUtf8()) << HistoryEvent::kindName(e.kind).toUtf8()
          << HistoryEvent::phaseName(e.phase).toUtf8() << QByteArray::number(e.opId)
          << QByteArray::number(e.token) << QByteArray::number(e.value) << outcomeName(e).toUtf8()
          << QByteArray::number(e.commands) << (e.hasVotes() ? e.votePattern(servers) : QByteArray())
          << quoted(history->text(e));
        chunk += f.join(',') + '\n';
        ++rows;
        if (chunk.size() > (1 << 20)) {
            out.write(chunk);
            chunk.clear();
        }
    }
    out.write(chunk);
    return rows;
}

} // namespace HistoryCsv
