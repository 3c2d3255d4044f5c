// LockStepLog: one mutex around the stream and the steps, since the watchdog reports renewals from its
// thread.
#include "locksteplog.h"

#include <QTextStream>

LockStepLog::LockStepLog(QTextStream &out, bool json)
    : m_out(out)
    , m_json(json)
{
    m_clock.start();
}

void LockStepLog::step(const QString &kind, const QString &text, QJsonObject fields)
{
    std::lock_guard lock(m_mutex);
    const double ms = double(m_clock.nsecsElapsed()) / 1e6;
    if (m_json) {
        fields.insert(QStringLiteral("t_ms"), qRound(ms * 1000) / 1000.0);
        fields.insert(QStringLiteral("step"), kind);
        fields.insert(QStringLiteral("text"), text);
        m_steps.append(fields);
        return;
    }
    m_out << QStringLiteral("+%1 ms  ").arg(ms, 10, 'f', 3) << kind.leftJustified(9) << " " << text << "\n"
          << Qt::flush;
}

void LockStepLog::note(const QString &text)
{
    std::lock_guard lock(m_mutex);
    if (!m_json)
        m_out << QString(16, u' ') << text << "\n" << Qt::flush;
}

QJsonArray LockStepLog::steps() const
{
    std::lock_guard lock(m_mutex);
    return m_steps;
}
