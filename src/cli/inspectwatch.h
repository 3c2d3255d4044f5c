// `inspect --watch`: keeps the locks found by the first scan live (keyspace notifications when the server
// publishes them, else a TTL poll and periodic rescans) and prints each acquisition, renewal, release,
// expiry and new diagnosis as a line (or a JSON object per line) until interrupted.
#pragma once

#include "inspect/keyspacewatcher.h"
#include "inspect/lockscanner.h"
#include "inspect/locktracker.h"
#include "inspect/scanoptions.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTextStream>
#include <QTimer>

class InspectWatch : public QObject
{
    Q_OBJECT
public:
    InspectWatch(const ConnectionSettings &settings, const ScanOptions &options, bool json, int pollMs,
                 QObject *parent = nullptr);

    // Starts watching from the locks the first scan found.
    void start(const QList<LockRecord> &initial);
    int eventsPrinted() const { return m_printed; }

private:
    void apply(const QList<LockRecord> &records);
    void gone(const QByteArray &key);
    void print(const QList<LockEvent> &events, const QByteArray &key, const LockRecord *record);
    void printDiagnoses(const LockRecord &record);
    void poll();
    void rescan();
    void flush();

    ConnectionSettings m_settings;
    ScanOptions m_options;
    bool m_json = false;
    LockScanner m_scanner;
    KeyspaceWatcher m_watcher;
    LockTracker m_tracker;
    QHash<QByteArray, LockRecord> m_locks;
    QHash<QByteArray, QStringList> m_codes; // diagnoses last printed, per lock
    QSet<QByteArray> m_seenThisScan;
    QSet<QByteArray> m_dirty;
    QTimer m_poll;
    QTimer m_rescan;
    QTimer m_flush;
    int m_pollOffset = 0;
    int m_printed = 0;
};
