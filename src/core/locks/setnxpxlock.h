// The SET NX PX family (seeds 000, 002, 003): one atomic SET key value NX PX lease to acquire; what differs
// is the value and the release.
//
//   UnconditionalDel  set-nx-px-del      value "lockValue" (seed 002 step 1), release = DEL whatever is there
//   GetThenDel        set-nx-px-get-del  value "<client id>:<thread id>" (seed 002 step 3), GET, compare in
//                                        the client, DEL: two round trips with a gap between them
//   CompareAndDelete  set-nx-px-lua(-watchdog)  a fresh random token per acquisition (seeds 000 / 003),
//                                        released by compare_and_delete.lua in one atomic step
//
// With options().watchdog (set-nx-px-lua-watchdog, seed 002 step 4) the process's watchdog extends the
// lease every lease/3 with compare_and_pexpire.lua, re-armed after each success, cancelled on release.
#pragma once

#include "distributedlock.h"

class SetNxPxLock : public DistributedLock
{
public:
    enum class Release { UnconditionalDel, GetThenDel, CompareAndDelete };

    SetNxPxLock(LockClient &client, const QString &algorithm, Release release, const QByteArray &name,
                qint64 threadId, const LockOptions &options);

    Release releaseKind() const { return m_release; }
    QStringList scriptNames() const override;

    // The literal value seed 002 step 1 writes.
    static QByteArray fixedValue() { return QByteArrayLiteral("lockValue"); }

protected:
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const override;

private:
    QByteArray valueForAcquire() const;

    const Release m_release;
};
