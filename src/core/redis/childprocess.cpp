// ChildProcess: fork/exec through one long-lived spawner thread, with PR_SET_PDEATHSIG in the child.
//
// Why a spawner thread: Linux sends the parent-death signal when the *thread* that forked exits, not the
// process. Forking from a simulation's worker thread would kill its servers when that thread ends, so all
// forks happen on one thread that lives as long as the process.
#include "childprocess.h"

#include "logging.h"

#include <QDeadlineTimer>
#include <QThread>

#include <condition_variable>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct SpawnRequest
{
    std::vector<std::string> argv;
    std::string workingDirectory;
    std::string logFile;
    pid_t result = -1;
    int error = 0;
    bool done = false;
};

pid_t forkExec(SpawnRequest &request)
{
    // Everything the child needs is prepared before fork: after it only async-signal-safe calls are allowed.
    std::vector<char *> argv;
    for (std::string &a : request.argv)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const int logFd = ::open(request.logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    const int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the parent died before prctl took effect
            ::_exit(127);
        ::setpgid(0, 0); // own process group: a Ctrl-C in a terminal reaches us first, and we clean up
        if (nullFd >= 0)
            ::dup2(nullFd, STDIN_FILENO);
        if (logFd >= 0) {
            ::dup2(logFd, STDOUT_FILENO);
            ::dup2(logFd, STDERR_FILENO);
        }
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        if (!request.workingDirectory.empty() && ::chdir(request.workingDirectory.c_str()) != 0)
            ::_exit(126);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    request.error = pid < 0 ? errno : 0;
    if (logFd >= 0)
        ::close(logFd);
    if (nullFd >= 0)
        ::close(nullFd);
    return pid;
}

class Spawner
{
public:
    static Spawner &instance()
    {
        // Deliberately leaked: the thread must outlive every static destructor that may stop a server.
        static Spawner *spawner = new Spawner;
        return *spawner;
    }

    pid_t spawn(SpawnRequest &request)
    {
        std::unique_lock lock(m_mutex);
        m_queue.push_back(&request);
        m_wake.notify_all();
        m_wake.wait(lock, [&] { return request.done; });
        return request.result;
    }

private:
    Spawner()
    {
        std::thread([this] { loop(); }).detach();
    }

    void loop()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return !m_queue.empty(); });
            SpawnRequest *request = m_queue.front();
            m_queue.erase(m_queue.begin());
            request->result = forkExec(*request);
            request->done = true;
            m_wake.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<SpawnRequest *> m_queue;
};

} // namespace

ChildProcess::~ChildProcess()
{
    if (m_pid > 0)
        kill();
}

bool ChildProcess::start(const QString &program, const QStringList &arguments,
                         const QString &workingDirectory, const QString &logFile)
{
    if (m_pid > 0 && isRunning()) {
        m_error = QStringLiteral("already running (pid %1)").arg(m_pid);
        return false;
    }
    SpawnRequest request;
    request.argv.push_back(program.toStdString());
    for (const QString &a : arguments)
        request.argv.push_back(a.toStdString());
    request.workingDirectory = workingDirectory.toStdString();
    request.logFile = logFile.toStdString();
    const pid_t pid = Spawner::instance().spawn(request);
    if (pid < 0) {
        m_error = QStringLiteral("cannot start %1: %2")
                      .arg(program, QString::fromLocal8Bit(strerror(request.error)));
        return false;
    }
    m_pid = pid;
    m_paused = false;
    m_error.clear();
    m_exitDescription.clear();
    qCDebug(lcSandbox) << "started" << program << arguments << "pid" << pid;
    return true;
}

bool ChildProcess::reap(bool block)
{
    if (m_pid <= 0)
        return true;
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, block ? 0 : WNOHANG);
    if (r == 0)
        return false;
    if (r == m_pid) {
        if (WIFEXITED(status))
            m_exitDescription = QStringLiteral("exited with code %1").arg(WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
            m_exitDescription = QStringLiteral("killed by signal %1").arg(WTERMSIG(status));
    } else if (m_exitDescription.isEmpty()) {
        m_exitDescription = QStringLiteral("ended (not reaped here)");
    }
    m_pid = -1;
    m_paused = false;
    return true;
}

bool ChildProcess::isRunning()
{
    return m_pid > 0 && !reap(false);
}

bool ChildProcess::pause()
{
    if (!isRunning() || ::kill(m_pid, SIGSTOP) != 0)
        return false;
    m_paused = true;
    return true;
}

bool ChildProcess::resume()
{
    if (!isRunning() || ::kill(m_pid, SIGCONT) != 0)
        return false;
    m_paused = false;
    return true;
}

bool ChildProcess::waitForExit(int ms)
{
    QDeadlineTimer deadline(ms);
    while (isRunning()) {
        if (deadline.hasExpired())
            return false;
        QThread::msleep(5); // waitpid has no timeout; poll the exit at a fine grain
    }
    return true;
}

void ChildProcess::terminate(int graceMs)
{
    if (m_pid <= 0)
        return;
    if (m_paused)
        ::kill(m_pid, SIGCONT); // a stopped process would not act on SIGTERM
    ::kill(m_pid, SIGTERM);
    if (!waitForExit(graceMs))
        kill();
}

void ChildProcess::kill()
{
    if (m_pid <= 0)
        return;
    ::kill(m_pid, SIGKILL);
    reap(true);
}
