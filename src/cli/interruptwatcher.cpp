// InterruptWatcher: the handler only write()s one byte, the one async-signal-safe thing it needs to do.
#include "interruptwatcher.h"

#include "checkedoutput.h"
#include "cliio.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace {
int g_pipe[2] = {-1, -1};
constexpr int kOutputCheckMs = 200;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void onSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
}
} // namespace

InterruptWatcher::InterruptWatcher(QObject *parent)
    : QObject(parent)
{
    if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    m_notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char buffer[16];
        while (::read(g_pipe[0], buffer, sizeof buffer) > 0) { }
        fire();
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int s : kSignals)
        ::sigaction(s, &action, nullptr);
}

InterruptWatcher::~InterruptWatcher()
{
    for (int s : kSignals)
        std::signal(s, SIG_DFL);
}

void InterruptWatcher::stopWhenOutputLost()
{
    if (m_outputCheck)
        return;
    // A write error is noticed at once; a reader that left while we had nothing to say, at the next check.
    connect(&CliIo::stdoutDevice(), &CheckedOutput::writeFailed, this, [this] {
        m_outputLost = true;
        fire();
    });
    m_outputCheck = new QTimer(this);
    m_outputCheck->setInterval(kOutputCheckMs);
    connect(m_outputCheck, &QTimer::timeout, this, [this] {
        if (!m_outputLost && (CliIo::stdoutDevice().failed() || CliIo::stdoutDevice().readerGone())) {
            m_outputLost = true;
            fire();
        }
    });
    m_outputCheck->start();
}

void InterruptWatcher::quitEventLoopWhenInterrupted()
{
    // Queued: the quit is posted, and the loop takes it as soon as it runs.
    connect(this, &InterruptWatcher::interrupted, qApp, &QCoreApplication::quit, Qt::QueuedConnection);
}

void InterruptWatcher::fire()
{
    m_interrupted = true;
    emit interrupted();
}
