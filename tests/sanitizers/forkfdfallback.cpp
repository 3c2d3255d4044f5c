// Linked into the test programs of ThreadSanitizer builds only (see tests/CMakeLists.txt).
//
// Why: Qt 6.4's QProcess starts children through forkfd, which on Linux calls clone(CLONE_PIDFD) through
// syscall() when the kernel has pidfds. TSan does not see that clone, so the child inherits a runtime that
// still believes the parent's other threads exist, and its first intercepted call aborts
// ("CHECK failed: tsan_rtl.cpp:234"). forkfd decides once whether pidfds work by asking waitid(P_PIDFD); this
// definition of syscall() (found before libc's) answers that one question "not supported", so forkfd falls
// back to plain fork(), which TSan intercepts and handles. Every other syscall goes to libc unchanged.
// LockScope itself starts its children through ChildProcess, which calls fork(); QProcess is left only for
// the tests (the programs they start, on their main thread).
#include <dlfcn.h>

#include <cerrno>
#include <cstdarg>
#include <sys/syscall.h>

namespace {
constexpr long kIdTypePidfd = 3; // P_PIDFD, Linux 5.4
}

extern "C" long syscall(long number, ...)
{
    // Like glibc's own wrapper, take six register-sized arguments whatever the call needs.
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long &argument : a)
        argument = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_waitid
        && static_cast<int>(a[0]) == kIdTypePidfd) { // idtype_t is an int: upper half unset
        errno = EINVAL; // what a kernel without pidfds answers
        return -1;
    }
    using Syscall = long (*)(long, ...);
    static const Syscall libcSyscall = reinterpret_cast<Syscall>(dlsym(RTLD_NEXT, "syscall"));
    return libcSyscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
