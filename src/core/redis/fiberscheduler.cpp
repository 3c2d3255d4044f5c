// FiberScheduler: fibers on one thread, an epoll loop for readable sockets, a timer heap for deadlines, and an
// eventfd through which other threads hand in new fibers and wake-ups. On x86-64 a switch saves the six
// callee-saved registers and the stack pointer (FiberContext below); elsewhere it is ucontext's swapcontext,
// which also saves the signal mask — a system call each way, at two switches per command.
#include "fiberscheduler.h"

#include "logging.h"

#include <pthread.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

// Sanitizers follow a stack switch only when told (their shadow stacks and happens-before are per stack).
#if defined(__SANITIZE_ADDRESS__)
#define LOCKSCOPE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCKSCOPE_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define LOCKSCOPE_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOCKSCOPE_FIBER_TSAN 1
#endif
#endif

#if defined(LOCKSCOPE_FIBER_ASAN)
extern "C" void __sanitizer_start_switch_fiber(void **fakeStackSave, const void *bottom, size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void *fakeStackSave, const void **bottomOld, size_t *sizeOld);
#endif
#if defined(LOCKSCOPE_FIBER_TSAN)
extern "C" void *__tsan_get_current_fiber();
extern "C" void *__tsan_create_fiber(unsigned flags);
extern "C" void __tsan_destroy_fiber(void *fiber);
extern "C" void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

#if defined(__x86_64__)
// lockscope_fiber_switch(&from->sp, to->sp): pushes what the System V ABI says a callee keeps (rbp, rbx,
// r12–r15, the SSE and x87 control words), saves the stack pointer, loads the other one and pops its.
extern "C" void lockscope_fiber_switch(void **saveSp, void *loadSp);
asm(R"(
    .text
    .globl lockscope_fiber_switch
    .type lockscope_fiber_switch, @function
lockscope_fiber_switch:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size lockscope_fiber_switch, .-lockscope_fiber_switch
)");
#endif

namespace {
thread_local FiberScheduler *t_scheduler = nullptr; // set while one of its fibers runs on this thread
const long pageBytes = sysconf(_SC_PAGESIZE);

// Where a fiber (or the loop) was when it gave the thread up.
struct FiberContext
{
#if defined(__x86_64__)
    void *sp = nullptr;

    // A stack whose first switch "returns" into `entry` as if `entry` had been called (the ABI wants
    // rsp + 8 aligned to 16 there); `entry` must never return.
    void prepare(void *stackBase, std::size_t stackSize, void (*entry)())
    {
        auto top = reinterpret_cast<std::uintptr_t>(stackBase) + stackSize;
        top &= ~std::uintptr_t(15);
        auto *frame = reinterpret_cast<std::uint64_t *>(top);
        frame[-1] = 0; // entry's return address: none
        frame[-2] = reinterpret_cast<std::uint64_t>(entry); // what the switch's ret jumps to
        for (int r = 3; r <= 8; ++r)
            frame[-r] = 0; // rbp, rbx, r12–r15
        frame[-9] = 0x037F00001F80ull; // x87 control word (high half) and MXCSR (low half): their defaults
        sp = &frame[-9];
    }
    static void swap(FiberContext &from, FiberContext &to) { lockscope_fiber_switch(&from.sp, to.sp); }
#else
    ucontext_t context {};

    void prepare(void *stackBase, std::size_t stackSize, void (*entry)())
    {
        getcontext(&context);
        context.uc_stack.ss_sp = stackBase;
        context.uc_stack.ss_size = stackSize;
        context.uc_link = nullptr;
        makecontext(&context, entry, 0);
    }
    static void swap(FiberContext &from, FiberContext &to) { swapcontext(&from.context, &to.context); }
#endif
};
} // namespace

struct FiberScheduler::Fiber
{
    enum class State { Ready, Running, Parked, Done };

    FiberContext context;
    void *mapping = nullptr; // guard page + stack
    std::size_t mappingBytes = 0;
    std::function<void()> body;
    FiberScheduler *scheduler = nullptr;
    State state = State::Ready; // read and written on the scheduler's thread only
    std::atomic_bool permit = false; // a wake-up not yet consumed by park()
    Wake wake = Wake::Unparked;
    quint64 parkSeq = 0; // which park() a timer belongs to
    void *tsanFiber = nullptr;
    void *asanFakeStack = nullptr;

    const void *stackBottom() const { return static_cast<char *>(mapping) + pageBytes; }
    std::size_t stackSize() const { return mappingBytes - std::size_t(pageBytes); }

    ~Fiber()
    {
        if (mapping)
            munmap(mapping, mappingBytes);
#if defined(LOCKSCOPE_FIBER_TSAN)
        if (tsanFiber)
            __tsan_destroy_fiber(tsanFiber);
#endif
    }
};

struct FiberScheduler::LoopContext
{
    FiberContext context;
    void *tsanFiber = nullptr;
    const void *asanBottom = nullptr;
    std::size_t asanSize = 0;
};

FiberScheduler::FiberScheduler(const QString &name, std::size_t stackBytes)
    : m_name(name)
    , m_stackBytes((stackBytes + std::size_t(pageBytes) - 1) / std::size_t(pageBytes) * std::size_t(pageBytes))
    , m_loopContext(std::make_unique<LoopContext>())
{
    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = m_wakeFd;
    if (m_epoll < 0 || m_wakeFd < 0 || epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &ev) != 0)
        qFatal("FiberScheduler: epoll/eventfd set-up failed: %s", std::strerror(errno));
    m_thread = std::thread([this] {
        const QByteArray threadName = m_name.toUtf8().left(15); // the kernel keeps 15 bytes
        pthread_setname_np(pthread_self(), threadName.constData());
        usePreciseTimers();
        loop();
    });
}

FiberScheduler::~FiberScheduler()
{
    m_stopping = true;
    const quint64 one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof one);
    m_thread.join();
    ::close(m_wakeFd);
    ::close(m_epoll);
}

std::size_t FiberScheduler::defaultStackBytes()
{
#if defined(LOCKSCOPE_FIBER_ASAN) || defined(LOCKSCOPE_FIBER_TSAN)
    return std::size_t(1) << 20;
#else
    return std::size_t(256) << 10;
#endif
}

void FiberScheduler::spawn(std::function<void()> body)
{
    auto fiber = std::make_shared<Fiber>();
    fiber->scheduler = this;
    fiber->body = std::move(body);
    fiber->mappingBytes = m_stackBytes + std::size_t(pageBytes);
    fiber->mapping = mmap(nullptr, fiber->mappingBytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (fiber->mapping == MAP_FAILED)
        qFatal("FiberScheduler: no memory for a fiber stack of %zu bytes", fiber->mappingBytes);
    mprotect(fiber->mapping, std::size_t(pageBytes), PROT_NONE); // overflow faults instead of corrupting
    fiber->context.prepare(static_cast<char *>(fiber->mapping) + pageBytes, fiber->stackSize(),
                           &FiberScheduler::entry);
#if defined(LOCKSCOPE_FIBER_TSAN)
    fiber->tsanFiber = __tsan_create_fiber(0);
#endif
    ++m_live;
    bool first = false;
    {
        std::lock_guard lock(m_remoteMutex);
        first = m_remoteSpawns.empty() && m_remoteWakes.empty();
        m_remoteSpawns.push_back(std::move(fiber));
    }
    if (first) {
        const quint64 one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof one);
    }
}

void FiberScheduler::waitUntilEmpty()
{
    std::unique_lock lock(m_remoteMutex);
    m_empty.wait(lock, [this] { return m_live.load() == 0; });
}

FiberScheduler *FiberScheduler::current()
{
    return t_scheduler;
}

FiberScheduler::Handle FiberScheduler::self()
{
    return t_scheduler ? t_scheduler->m_current : Handle();
}

FiberScheduler::Wake FiberScheduler::park(std::optional<Clock::time_point> deadline)
{
    Fiber &fiber = *m_current;
    if (fiber.permit.exchange(false))
        return Wake::Unparked;
    fiber.state = Fiber::State::Parked;
    ++fiber.parkSeq;
    if (deadline)
        m_timers.push({*deadline, fiber.parkSeq, m_current});
    switchToLoop(false);
    return fiber.wake;
}

void FiberScheduler::unpark(const Handle &fiber)
{
    if (!fiber || fiber->permit.exchange(true))
        return; // a wake-up is pending already
    FiberScheduler *owner = fiber->scheduler;
    if (t_scheduler == owner) { // from a fiber of the same loop: no need to go through the eventfd
        if (fiber->state == Fiber::State::Parked && fiber->permit.exchange(false))
            owner->makeReady(fiber, Wake::Unparked);
        return;
    }
    bool first = false;
    {
        std::lock_guard lock(owner->m_remoteMutex);
        first = owner->m_remoteSpawns.empty() && owner->m_remoteWakes.empty();
        owner->m_remoteWakes.push_back(fiber);
    }
    if (first) {
        const quint64 one = 1;
        [[maybe_unused]] const ssize_t n = ::write(owner->m_wakeFd, &one, sizeof one);
    }
}

bool FiberScheduler::waitReadable(int fd, std::optional<Clock::time_point> deadline)
{
    for (;;) {
        epoll_event ev {};
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
        ev.data.fd = fd;
        // One registration per fd, re-armed each time (one system call); ADD the first time, or when the fd
        // number now belongs to a new socket (closing the old one removed it from the set).
        if (epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &ev) != 0
            && (errno != ENOENT || epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev) != 0))
            return true; // not pollable (closed): the read reports the error at once, it cannot block
        m_fdWaiters[fd] = m_current;
        const Wake why = park(deadline);
        if (why == Wake::Readable)
            return true;
        const auto waiter = m_fdWaiters.find(fd);
        if (waiter != m_fdWaiters.end() && waiter->second == m_current)
            m_fdWaiters.erase(waiter);
        if (why == Wake::Timeout)
            return false;
        // A kept wake-up from an earlier wait: wait again.
    }
}

void FiberScheduler::sleepFor(std::chrono::microseconds us)
{
    FiberScheduler *scheduler = current();
    if (!scheduler) {
        std::this_thread::sleep_for(us);
        return;
    }
    const Clock::time_point until = Clock::now() + us;
    while (Clock::now() < until)
        scheduler->park(until);
}

void FiberScheduler::usePreciseTimers()
{
    // 1 µs (the value is in nanoseconds). Were it refused, timers would only be late again, as before.
    prctl(PR_SET_TIMERSLACK, 1000UL);
}

void FiberScheduler::loop()
{
#if defined(LOCKSCOPE_FIBER_TSAN)
    m_loopContext->tsanFiber = __tsan_get_current_fiber();
#endif
    for (;;) {
        takeRemote();
        expireTimers();
        runReady();
        if (m_stopping.load() && m_live.load() == 0)
            break;
        waitForEvents();
    }
}

void FiberScheduler::takeRemote()
{
    std::vector<Handle> spawns;
    std::vector<Handle> wakes;
    {
        std::lock_guard lock(m_remoteMutex);
        spawns.swap(m_remoteSpawns);
        wakes.swap(m_remoteWakes);
    }
    for (Handle &f : spawns)
        m_ready.push_back(std::move(f));
    for (const Handle &f : wakes) {
        if (f->state == Fiber::State::Parked && f->permit.exchange(false))
            makeReady(f, Wake::Unparked);
    }
}

void FiberScheduler::makeReady(const Handle &fiber, Wake why)
{
    if (fiber->state != Fiber::State::Parked)
        return;
    fiber->state = Fiber::State::Ready;
    fiber->wake = why;
    m_ready.push_back(fiber);
}

void FiberScheduler::runReady()
{
    // Only those ready now: a fiber made ready meanwhile runs after the next look at the sockets, so a
    // busy fiber cannot starve the loop's I/O.
    for (std::size_t n = m_ready.size(); n > 0 && !m_ready.empty(); --n) {
        Handle fiber = std::move(m_ready.front());
        m_ready.pop_front();
        if (fiber->state != Fiber::State::Ready)
            continue;
        switchTo(fiber);
        if (fiber->state == Fiber::State::Done) {
            fiber.reset(); // frees the stack (timers or waiters may keep the handle a little longer)
            if (--m_live == 0) {
                std::lock_guard lock(m_remoteMutex);
                m_empty.notify_all();
            }
        }
    }
}

void FiberScheduler::waitForEvents()
{
    timespec timeout {};
    const timespec *wait = &timeout; // zero: only look
    if (m_ready.empty()) {
        if (m_timers.empty()) {
            wait = nullptr; // until something happens
        } else {
            const auto left = m_timers.top().at - Clock::now();
            const qint64 ns = std::max<qint64>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
            timeout.tv_sec = time_t(ns / 1000000000);
            timeout.tv_nsec = long(ns % 1000000000);
        }
    }
    epoll_event events[64];
    const int n = epoll_pwait2(m_epoll, events, 64, wait, nullptr);
    if (n < 0) {
        if (errno != EINTR)
            qCWarning(lcRedis) << "fiber loop" << m_name << "epoll failed:" << std::strerror(errno);
        return;
    }
    for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == m_wakeFd) {
            quint64 count = 0;
            [[maybe_unused]] const ssize_t r = ::read(m_wakeFd, &count, sizeof count);
            continue;
        }
        const auto waiter = m_fdWaiters.find(fd);
        if (waiter == m_fdWaiters.end())
            continue; // its wait timed out meanwhile
        Handle fiber = std::move(waiter->second);
        m_fdWaiters.erase(waiter);
        makeReady(fiber, Wake::Readable);
    }
}

void FiberScheduler::expireTimers()
{
    if (m_timers.empty())
        return;
    const Clock::time_point now = Clock::now();
    while (!m_timers.empty() && m_timers.top().at <= now) {
        const Timer timer = m_timers.top();
        m_timers.pop();
        if (timer.fiber->state == Fiber::State::Parked && timer.fiber->parkSeq == timer.parkSeq)
            makeReady(timer.fiber, Wake::Timeout);
    }
}

void FiberScheduler::switchTo(const Handle &handle)
{
    Fiber &fiber = *handle;
    m_current = handle; // what self() and park() use while it runs
    fiber.state = Fiber::State::Running;
    t_scheduler = this;
#if defined(LOCKSCOPE_FIBER_ASAN)
    void *fakeStack = nullptr;
    __sanitizer_start_switch_fiber(&fakeStack, fiber.stackBottom(), fiber.stackSize());
#endif
#if defined(LOCKSCOPE_FIBER_TSAN)
    __tsan_switch_to_fiber(fiber.tsanFiber, 0);
#endif
    FiberContext::swap(m_loopContext->context, fiber.context);
#if defined(LOCKSCOPE_FIBER_ASAN)
    __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#endif
    t_scheduler = nullptr;
    m_current.reset();
}

void FiberScheduler::switchToLoop(bool finished)
{
    Fiber &fiber = *m_current;
#if defined(LOCKSCOPE_FIBER_ASAN)
    __sanitizer_start_switch_fiber(finished ? nullptr : &fiber.asanFakeStack, m_loopContext->asanBottom,
                                   m_loopContext->asanSize);
#else
    Q_UNUSED(finished);
#endif
#if defined(LOCKSCOPE_FIBER_TSAN)
    __tsan_switch_to_fiber(m_loopContext->tsanFiber, 0);
#endif
    FiberContext::swap(fiber.context, m_loopContext->context);
#if defined(LOCKSCOPE_FIBER_ASAN)
    __sanitizer_finish_switch_fiber(fiber.asanFakeStack, &m_loopContext->asanBottom, &m_loopContext->asanSize);
#endif
}

void FiberScheduler::entry()
{
    FiberScheduler *scheduler = t_scheduler;
#if defined(LOCKSCOPE_FIBER_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &scheduler->m_loopContext->asanBottom,
                                    &scheduler->m_loopContext->asanSize);
#endif
    Fiber &fiber = *scheduler->m_current;
    fiber.body();
    fiber.body = nullptr; // its captures go while the fiber can still run their destructors
    fiber.state = Fiber::State::Done;
    scheduler->switchToLoop(true); // never comes back
}
