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
#include <string_view>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct SpawnRequest
{
    std::vector<std::string> argv;
    std::vector<std::string> environment; // NAME=VALUE entries set on top of ours
    std::string workingDirectory;
    std::string logFile;
    std::string outputFile; // the child's standard output, when not the log
    int childStdin = -1; // the child's ends of its pipes (-1: /dev/null in, the log out)
    int childStdout = -1;
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
    // The environment: ours, with the request's entries replacing those of the same name.
    std::vector<char *> envp;
    for (std::string &e : request.environment)
        envp.push_back(e.data());
    for (char **e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        const std::string_view name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const std::string &mine : request.environment)
            replaced = replaced || std::string_view(mine).substr(0, mine.find('=')) == name;
        if (!replaced)
            envp.push_back(*e);
    }
    envp.push_back(nullptr);
    const pid_t parent = ::getpid();
    const int logFd = ::open(request.logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    const int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int outputFd = request.outputFile.empty()
        ? -1
        : ::open(request.outputFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

    const pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the parent died before prctl took effect
            ::_exit(127);
        ::setpgid(0, 0); // own process group: a Ctrl-C in a terminal reaches us first, and we clean up
        if (request.childStdin >= 0)
            ::dup2(request.childStdin, STDIN_FILENO);
        else if (nullFd >= 0)
            ::dup2(nullFd, STDIN_FILENO);
        if (logFd >= 0)
            ::dup2(logFd, STDERR_FILENO);
        if (request.childStdout >= 0)
            ::dup2(request.childStdout, STDOUT_FILENO);
        else if (outputFd >= 0)
            ::dup2(outputFd, STDOUT_FILENO);
        else if (logFd >= 0)
            ::dup2(logFd, STDOUT_FILENO);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        if (!request.workingDirectory.empty() && ::chdir(request.workingDirectory.c_str()) != 0)
            ::_exit(126);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    request.error = pid < 0 ? errno : 0;
    if (logFd >= 0)
        ::close(logFd);
    if (nullFd >= 0)
        ::close(nullFd);
    if (outputFd >= 0)
        ::close(outputFd);
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
                         const QString &workingDirectory, const QString &logFile,
                         const QStringList &environment, const QString &outputFile)
{
    return spawn(program, arguments, workingDirectory, logFile, outputFile, environment, nullptr);
}

bool ChildProcess::startPiped(const QString &program, const QStringList &arguments,
                              const QString &workingDirectory, const QString &logFile,
                              const QStringList &environment, Pipes *pipes)
{
    return spawn(program, arguments, workingDirectory, logFile, {}, environment, pipes);
}

bool ChildProcess::spawn(const QString &program, const QStringList &arguments,
                         const QString &workingDirectory, const QString &logFile, const QString &outputFile,
                         const QStringList &environment, Pipes *pipes)
{
    if (m_pid > 0 && isRunning()) {
        m_error = QStringLiteral("already running (pid %1)").arg(m_pid);
        return false;
    }
    SpawnRequest request;
    request.argv.push_back(program.toStdString());
    for (const QString &a : arguments)
        request.argv.push_back(a.toStdString());
    for (const QString &e : environment)
        request.environment.push_back(e.toStdString());
    request.workingDirectory = workingDirectory.toStdString();
    request.logFile = logFile.toStdString();
    request.outputFile = outputFile.toStdString();
    // Both pipes close on exec: only the child's dup2'ed copies survive, so no other child inherits them.
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipes && (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)) {
        m_error = QStringLiteral("cannot make pipes for %1: %2").arg(program, QString::fromLocal8Bit(strerror(errno)));
        for (int fd : {in[0], in[1], out[0], out[1]})
            if (fd >= 0)
                ::close(fd);
        return false;
    }
    request.childStdin = in[0];
    request.childStdout = out[1];
    const pid_t pid = Spawner::instance().spawn(request);
    if (pipes) {
        ::close(in[0]);
        ::close(out[1]);
        if (pid < 0) {
            ::close(in[1]);
            ::close(out[0]);
        } else {
            pipes->toChild = in[1];
            pipes->fromChild = out[0];
        }
    }
    if (pid < 0) {
        m_error = QStringLiteral("cannot start %1: %2")
                      .arg(program, QString::fromLocal8Bit(strerror(request.error)));
        return false;
    }
    m_pid = pid;
    m_group = pipes != nullptr;
    m_paused = false;
    m_error.clear();
    m_exitDescription.clear();
    m_exitCode = -1;
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
        if (WIFEXITED(status)) {
            m_exitCode = WEXITSTATUS(status);
            m_exitDescription = QStringLiteral("exited with code %1").arg(m_exitCode);
        } else if (WIFSIGNALED(status))
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

bool ChildProcess::signal(int number)
{
    // A piped child is a program of the user's (a shell script, ssh, a runtime with helpers): its whole
    // process group gets the signal, so a pause stops the adapter and not only its wrapper.
    return ::kill(m_group ? -m_pid : m_pid, number) == 0;
}

bool ChildProcess::pause()
{
    if (!isRunning() || !signal(SIGSTOP))
        return false;
    m_paused = true;
    return true;
}

bool ChildProcess::resume()
{
    if (!m_paused || !isRunning() || !signal(SIGCONT))
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
        signal(SIGCONT); // a stopped process would not act on SIGTERM
    signal(SIGTERM);
    if (!waitForExit(graceMs))
        kill();
}

void ChildProcess::kill()
{
    if (m_pid <= 0)
        return;
    signal(SIGKILL);
    reap(true);
}
