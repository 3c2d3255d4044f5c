// Turns successive readings of locks (scans, refreshes) and keyspace notifications into per-key history:
// acquired / renewed / changed / released / expired. Pure bookkeeping, no network: the GUI and
// `lockscope-cli inspect --watch` both feed it.
#pragma once

#include "lockdiagnostics.h"
#include "lockhistory.h"
#include "lockrecord.h"

#include <QHash>

class LockTracker
{
public:
    enum class Source {
        Scan, // a full scan: a lock met for the first time was taken at some unknown earlier time
        Live, // a refresh or a notification: a lock met for the first time was just acquired
    };

    // A fresh reading of `record`. Returns the events it implies (also appended to the key's history).
    QList<LockEvent> observe(const LockRecord &record, Source source);
    // observe(), then diagnoses `record` again with `base` (thresholds) plus what its history knows (the
    // lease its renewals restore, the time since the last one), so a stalled watchdog is told from a fixed
    // lease.
    QList<LockEvent> observeAndDiagnose(LockRecord &record, Source source, const DiagnosticContext &base);
    // `key` no longer holds a lock, as found at monotonic time `atMs`. `unobserved`: why nobody could see it
    // go (an outage, a restart); it is then recorded as lost, not as a release or an expiry.
    QList<LockEvent> observeGone(const QByteArray &key, qint64 atMs, const QString &unobserved = QString());
    // A keyspace notification for `key`: remembered to say exactly what and when at the next reading.
    void noteNotification(const QByteArray &key, const QByteArray &event, qint64 atMs);

    const LockHistory *history(const QByteArray &key) const;
    bool isPresent(const QByteArray &key) const;
    // Adds what the history knows (observed lease, renewals) to a diagnostic context for `key`.
    void fillContext(const QByteArray &key, qint64 nowMs, DiagnosticContext *context) const;
    void clear()
    {
        m_states.clear();
        m_pendingHints.clear();
    }
    // Bounds on memory over a long session: histories of gone locks and hints for unknown keys.
    static constexpr qsizetype kMaxStates = 20000;
    static constexpr qsizetype kMaxPendingHints = 10000;
    qsizetype size() const { return m_states.size(); }

private:
    struct State
    {
        LockHistory history;
        bool present = false;
        QByteArray signature;
        QByteArray ownerIds; // owners without counts
        qint64 pttlMs = -2;
        qint64 readAtMs = 0;
        qint64 countTotal = 0;
        QByteArray hint; // the last notification since the last reading: "del", "expired", "expire", …
        qint64 hintAtMs = -1;
        qint64 expireHintAtMs = -1; // the last "expire" notification (a renewal's PEXPIRE)
    };

    struct Hint
    {
        QByteArray event;
        qint64 atMs = -1;
    };
    void prune();

    QHash<QByteArray, State> m_states;
    QHash<QByteArray, Hint> m_pendingHints; // notifications for keys not (yet) known as locks, bounded
};
