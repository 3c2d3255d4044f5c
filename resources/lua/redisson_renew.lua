-- redisson_renew.lua: one watchdog tick for a Redisson-compatible lock (RLock, fair, fenced, write lock).
-- Redisson's watchdog runs every lockWatchdogTimeout/3 (10 s by default) and puts the lease back to the
-- full timeout (30 s) for every lock its client still holds: the TTL is a saw-tooth between 30 s and 20 s.
--
-- KEYS[1]  the lock name N
-- ARGV[1]  lease in milliseconds (the watchdog timeout)
-- ARGV[2]  the owner field "<client uuid>:<thread id>" (":write" appended for a write lock)
-- returns  1  renewed
--          0  the owner's field is gone: the lock was released or lost, stop renewing it

if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return 1
end
return 0
