// Turns Ctrl-C / SIGTERM into a Qt signal (self-pipe), so long-running commands can stop cleanly:
// print their summary, stop their sandbox, flush their files.
#pragma once

#include <QObject>

class QSocketNotifier;

class InterruptWatcher : public QObject
{
    Q_OBJECT
public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override; // restores the default handlers

    bool wasInterrupted() const { return m_interrupted; }

signals:
    void interrupted();

private:
    QSocketNotifier *m_notifier = nullptr;
    bool m_interrupted = false;
};
