// A child process (redis-server, redis-sentinel, a client adapter) that can never outlive LockScope: it is
// killed when we die, even by SIGKILL. Signals for the simulator's faults: stop (SIGSTOP), continue,
// terminate, kill.
#pragma once

#include <QString>
#include <QStringList>

#include <sys/types.h>

class ChildProcess
{
public:
    ChildProcess() = default;
    ~ChildProcess(); // kills the child if it still runs
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    // Starts `program` (a full path) with `arguments` in `workingDirectory` (empty: ours); stdout/stderr go
    // to `logFile`, or stdout to `outputFile` when one is given. `environment` (NAME=VALUE) goes on top of
    // ours.
    bool start(const QString &program, const QStringList &arguments, const QString &workingDirectory,
               const QString &logFile, const QStringList &environment = {}, const QString &outputFile = {});
    // The parent's ends of a piped child's standard input and output (the caller closes them).
    struct Pipes
    {
        int toChild = -1;
        int fromChild = -1;
    };
    // Starts `program` with its standard input and output on pipes (standard error goes to `logFile`) and
    // `environment` (NAME=VALUE) on top of ours. Signals then go to the child's whole process group.
    bool startPiped(const QString &program, const QStringList &arguments, const QString &workingDirectory,
                    const QString &logFile, const QStringList &environment, Pipes *pipes);
    bool isRunning();
    pid_t pid() const { return m_pid; }
    // Exit description once it ended ("exited with code 1", "killed by signal 9").
    QString exitDescription() const { return m_exitDescription; }
    // Its exit code once it exited on its own; -1 while it runs, or when a signal ended it.
    int exitCode() const { return m_exitCode; }
    const QString &errorString() const { return m_error; }

    bool pause(); // SIGSTOP
    // SIGCONT, only to a child that pause() stopped and that was not reaped yet: a pid that was reaped may be
    // another process's by now, and a child that ended has nothing to resume.
    bool resume();
    bool isPaused() const { return m_paused; }
    // SIGTERM, wait up to `graceMs`, then SIGKILL. Always reaps the child.
    void terminate(int graceMs = 3000);
    // SIGKILL and reap: a crash, as far as the child's clients can tell.
    void kill();
    // Waits up to `ms` for the child to end on its own; true when it has ended.
    bool waitForExit(int ms);

private:
    bool spawn(const QString &program, const QStringList &arguments, const QString &workingDirectory,
               const QString &logFile, const QString &outputFile, const QStringList &environment,
               Pipes *pipes);
    bool reap(bool block);
    bool signal(int number);

    pid_t m_pid = -1;
    bool m_paused = false;
    bool m_group = false; // signals go to the process group (piped children)
    QString m_error;
    QString m_exitDescription;
    int m_exitCode = -1;
};
