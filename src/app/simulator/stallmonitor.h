// Watches the GUI thread for stalls: a 10 ms timer measures how late it fires. Anything above 50 ms means
// the event loop was blocked (the GUI froze); it is logged under lockscope.ui and kept for the benchmark.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

class StallMonitor : public QObject
{
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 10;
    static constexpr int kStallMs = 50;

    explicit StallMonitor(QObject *parent = nullptr);

    void start();
    void stop();
    void reset();
    double longestStallMs() const { return m_longestMs; } // the longest gap beyond the timer's interval
    int stalls() const { return m_stalls; } // gaps longer than kStallMs

private:
    void tick();

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    double m_longestMs = 0;
    int m_stalls = 0;
};
