// `inspect --watch`: the CLI's face of LockMonitor, the same live engine as the GUI's Inspector. Prints each
// acquisition, renewal, release, expiry, loss and new diagnosis as a line (or a JSON object per line), says
// when the server cannot be read (then nothing is declared released), and through Sentinel names the master
// it reads and each failover (from which address to which), until interrupted.
#pragma once

#include "inspect/lockmonitor.h"

#include <QObject>

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
    void print(const QList<LockEvent> &events, const QByteArray &key, const LockRecord &record);
    void printDiagnosis(const LockRecord &record, const LockDiagnosis &diagnosis);
    // The master read through Sentinel (on stderr, once known), and a failover as an event (from, to).
    void printAddress(const QString &from, const QString &to);

    LockMonitor m_monitor;
    bool m_json = false;
    int m_printed = 0;
};
