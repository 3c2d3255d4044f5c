// A lock whose acquire, release and renew are the user's own Lua (CustomLockScripts), driven exactly as the
// catalog's locks are, so the simulator, the stories and the explorer run it like any other: catalog id
// "custom-lua", its scripts in LockOptions::customScripts. Each acquisition gets a fresh random token.
//
// A script that runs past the server's busy threshold makes every other command answer BUSY: the lock that
// meets BUSY stops the script (SCRIPT KILL) and reports it, so a runaway script ends the way it started —
// visibly, never as a frozen run.
#pragma once

#include "customlockscripts.h"
#include "distributedlock.h"

#include <memory>

class CustomLuaLock : public DistributedLock
{
public:
    CustomLuaLock(LockClient &client, const QByteArray &name, qint64 threadId, const LockOptions &options);

protected:
    AcquireResult attemptAcquire(const LockServers &servers, LockIo &io) override;
    ReleaseResult attemptRelease(const LockServers &servers, LockIo &io) override;
    LockWatchdog::RenewFunction renewFunction(qint64 leaseMs) const override;

private:
    // Runs `script` with the lock's key, `token` and `leaseMs`; on BUSY, stops the script that holds the
    // server and says so in the result's error.
    static RedisResult run(RedisConnection &connection, LockIo &io, const LuaScript &script, const QByteArray &key,
                           const QByteArray &token, qint64 leaseMs);

    std::shared_ptr<const CustomLockScripts> m_scripts;
};
