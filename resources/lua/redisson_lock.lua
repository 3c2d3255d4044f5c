-- redisson_lock.lua: acquire (or re-enter) a Redisson-compatible reentrant lock (RLock).
-- Storage, as Redisson 3.x keeps it: the lock name N is a HASH; its one field is the owner
-- "<client uuid>:<thread id>" and the field's value counts how many times that thread holds the lock.
-- The hash's TTL is the lease: 30 s under the watchdog (renewed every 10 s), or a fixed lease time.
--
-- KEYS[1]  the lock name N
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's owner field "<client uuid>:<thread id>"
-- returns  nil  acquired: the lock was free, or the caller already held it (the count went up by one)
--          n    refused: another owner holds it for n more milliseconds. Waiters sleep at most n ms
--               on the channel redisson_lock__channel:{N} before trying again.

if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return nil
end
return redis.call('PTTL', KEYS[1])
