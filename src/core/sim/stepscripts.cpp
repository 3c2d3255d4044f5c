// StepScripts: read from the scripts' names, which say what they do (redisson_lock, compare_and_delete…).
#include "stepscripts.h"

#include "locks/lockcatalog.h"

namespace StepScripts {

namespace {
bool isRelease(const QString &name)
{
    return name.contains(QLatin1String("unlock")) || name.contains(QLatin1String("delete"));
}
bool isRenewal(const QString &name)
{
    return name.contains(QLatin1String("renew")) || name.contains(QLatin1String("pexpire"));
}
bool isWrite(const QString &name)
{
    return name.contains(QLatin1String("write")) && !name.contains(QLatin1String("lock"));
}
// A failed fair acquire cleans its queue entry up: part of acquiring, shown with it.
bool isAcquire(const QString &name)
{
    return !isRelease(name) && !isRenewal(name) && !isWrite(name);
}
} // namespace

QStringList forStep(const LockAlgorithmInfo &info, Scenario::Step::Action action, bool fencing)
{
    using A = Scenario::Step::Action;
    QStringList out;
    for (const QString &name : info.scripts) {
        const bool wanted = (action == A::Acquire && isAcquire(name)) || (action == A::Release && isRelease(name))
            || (action == A::Write && fencing && isWrite(name));
        if (wanted)
            out << name;
    }
    return out;
}

bool touchesTheLock(Scenario::Step::Action action)
{
    using A = Scenario::Step::Action;
    return action == A::Acquire || action == A::Release || action == A::Write;
}

} // namespace StepScripts
