// Turns Ctrl-C, SIGTERM and SIGHUP (an ssh session that dropped) into a Qt signal (self-pipe), so
// long-running commands can stop cleanly: print their summary, stop their sandbox, commit their files.
// Streaming commands also ask it to stop them when standard output is lost (the reader left, a full disk).
#pragma once

#include <QObject>

class QSocketNotifier;
class QTimer;

class InterruptWatcher : public QObject
{
    Q_OBJECT
public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override; // restores the default handlers

    // Also emit interrupted() within a fraction of a second once nobody can read standard output any more.
    void stopWhenOutputLost();
    // Make interrupted() end the application's event loop, also when it fires before the loop runs: a write
    // that fails between stopWhenOutputLost() and exec() emits it at once, and a quit() with no loop running
    // is lost (inspect --watch | head -1 then waited forever).
    void quitEventLoopWhenInterrupted();

    bool wasInterrupted() const { return m_interrupted; }
    bool outputLost() const { return m_outputLost; }

signals:
    void interrupted();

private:
    void fire();

    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_outputCheck = nullptr;
    bool m_interrupted = false;
    bool m_outputLost = false;
};
