-- redisson_unlock.lua: release one hold of a Redisson-compatible reentrant lock (RLock, fenced lock).
-- The last release deletes the hash and publishes "0" on redisson_lock__channel:{N}, which wakes one
-- waiting thread in every subscribed client. Redisson 3.24+ also writes an "unlock latch" so that a
-- retried release (after a lost reply) returns the first answer instead of releasing twice; the client
-- deletes the latch right after this script.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the channel redisson_lock__channel:{N}
-- KEYS[3]  optional: the unlock latch redisson_unlock_latch:{N}:<32 hex request id>
-- ARGV[1]  the message to publish: "0" (unlock)
-- ARGV[2]  lease in milliseconds, set again while holds remain
-- ARGV[3]  the caller's owner field "<client uuid>:<thread id>"
-- ARGV[4]  latch lifetime in milliseconds
-- ARGV[5]  optional: the publish command, PUBLISH (the default) or SPUBLISH where waiters listen
--          sharded (Redisson >= 3.22 on a Redis >= 7 cluster passes it the same way)
-- returns  1   released: the last hold is gone, the key deleted, "0" published
--          0   still held: the caller's count went down but is not zero yet
--          nil not the caller's: another owner holds the lock (Redisson throws
--              "attempt to unlock lock, not locked by current thread")
--         -1   there is no lock at all (its lease expired)

local publish = ARGV[5] or 'PUBLISH'

local latched = #KEYS >= 3
if latched then
    local previous = redis.call('GET', KEYS[3])
    if previous ~= false then
        return tonumber(previous)
    end
end
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then
    if redis.call('EXISTS', KEYS[1]) == 0 then
        return -1
    end
    return nil
end
local count = redis.call('HINCRBY', KEYS[1], ARGV[3], -1)
if count > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    if latched then
        redis.call('SET', KEYS[3], 0, 'PX', ARGV[4])
    end
    return 0
end
redis.call('DEL', KEYS[1])
redis.call(publish, KEYS[2], ARGV[1])
if latched then
    redis.call('SET', KEYS[3], 1, 'PX', ARGV[4])
end
return 1
