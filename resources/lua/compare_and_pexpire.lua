-- compare_and_pexpire.lua: extend a string lock's lease only while it still holds our token.
-- The watchdog of set-nx-px-lua-watchdog runs it every lease/3; extend() and redlock use it too.
--
-- Why a script: extending after a separate GET could extend a lock that expired and now belongs to
-- someone else, keeping *their* lock alive on our behalf.
--
-- KEYS[1]  the lock key (a STRING holding the owner's token)
-- ARGV[1]  the token this holder wrote when it acquired the lock
-- ARGV[2]  the new lease in milliseconds, counted from now
-- returns  1  extended
--          0  the key is gone: the lease already expired, the lock is lost
--         -1  another holder's token is in the key: the lock is lost

local current = redis.call('GET', KEYS[1])
if current == false then
    return 0
end
if current == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return -1
