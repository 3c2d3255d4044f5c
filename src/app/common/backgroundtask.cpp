#include "backgroundtask.h"

#if defined(__SANITIZE_THREAD__)
#define LOCKSCOPE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOCKSCOPE_TSAN 1
#endif
#endif

#ifdef LOCKSCOPE_TSAN
extern "C" void __tsan_acquire(void *address);
extern "C" void __tsan_release(void *address);
#endif

namespace BackgroundTask {

namespace {
// Two addresses stand for the two directions. A task acquires everything the GUI thread did before any
// hand-over, and the GUI thread everything a task did before it ended; tasks gain no order among themselves,
// so a race between two pool tasks is still reported.
[[maybe_unused]] char toPool;
[[maybe_unused]] char toGui;
} // namespace

#ifdef LOCKSCOPE_TSAN
void handOver()
{
    __tsan_release(&toPool);
}
void taskStarted()
{
    __tsan_acquire(&toPool);
}
void taskEnded()
{
    __tsan_release(&toGui);
}
void resultsArrived()
{
    __tsan_acquire(&toGui);
}
#else
void handOver() { }
void taskStarted() { }
void taskEnded() { }
void resultsArrived() { }
#endif

} // namespace BackgroundTask
