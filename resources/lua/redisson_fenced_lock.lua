-- redisson_fenced_lock.lua: acquire a Redisson-compatible fenced lock (RFencedLock).
-- Same HASH as the reentrant lock, plus a STRING counter redisson_lock_token:{N} (no TTL) that goes up by
-- one on every acquisition, re-entries included. The new value is the fencing token: a storage service
-- that remembers the highest token it has seen can refuse a write from a holder whose lease ran out
-- (for example during a long GC pause) because that holder's token is lower than the new holder's.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the token counter redisson_lock_token:{N}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's owner field "<client uuid>:<thread id>"
-- returns  {-1, token}  acquired, with the fencing token
--          {pttl, -1}   refused: another owner holds the lock for pttl more milliseconds

if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    local token = redis.call('INCR', KEYS[2])
    redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return {-1, token}
end
return {redis.call('PTTL', KEYS[1]), -1}
