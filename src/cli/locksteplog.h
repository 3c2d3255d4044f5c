// The steps of `lockscope-cli lock` as they happen: printed at once as text ("+   0.733 ms  acquire  ..."),
// or collected for the JSON document printed at the end. Safe to call from the watchdog's thread.
#pragma once

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>

#include <mutex>

class QTextStream;

class LockStepLog
{
public:
    // Text steps go to `out` as they happen; with `json` nothing is printed and steps() has them.
    LockStepLog(QTextStream &out, bool json);

    // One step, timed from the log's creation; `fields` are added to its JSON object.
    void step(const QString &kind, const QString &text, QJsonObject fields = {});
    // An indented line under the last step (text only: the JSON steps carry their own fields).
    void note(const QString &text);
    QJsonArray steps() const;

private:
    QTextStream &m_out;
    bool m_json;
    QElapsedTimer m_clock;
    mutable std::mutex m_mutex;
    QJsonArray m_steps;
};
