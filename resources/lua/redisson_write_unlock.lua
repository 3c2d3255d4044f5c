-- redisson_write_unlock.lua: release one write hold of a Redisson-compatible read-write lock.
-- When the last write hold goes: if the same thread still holds read locks the mode falls back to "read",
-- otherwise the hash is deleted and "1" is published on redisson_rwlock:{N}. "1" wakes *every* waiting
-- thread of each subscribed client, since all waiting readers may now enter together.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the channel redisson_rwlock:{N}
-- KEYS[3]  optional: the unlock latch redisson_unlock_latch:{N}:<32 hex request id>
-- ARGV[1]  the message to publish: "1" (wake all)
-- ARGV[2]  lease in milliseconds, set again while holds remain
-- ARGV[3]  the caller's write field "<client uuid>:<thread id>:write"
-- ARGV[4]  latch lifetime in milliseconds
-- ARGV[5]  optional: the publish command, PUBLISH (the default) or SPUBLISH where waiters listen
--          sharded (Redisson >= 3.22 on a Redis >= 7 cluster passes it the same way)
-- returns  1 released · 0 still held · nil the caller holds no write lock ·
--         -1 there is no lock at all (its lease expired; "1" is published anyway, as Redisson does)

local publish = ARGV[5] or 'PUBLISH'

local latched = #KEYS >= 3
local function latch(value)
    if latched then
        redis.call('SET', KEYS[3], value, 'PX', ARGV[4])
    end
end
if latched then
    local previous = redis.call('GET', KEYS[3])
    if previous ~= false then
        return tonumber(previous)
    end
end

local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
    redis.call(publish, KEYS[2], ARGV[1])
    latch(1)
    return -1
end
if mode ~= 'write' or redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local count = redis.call('HINCRBY', KEYS[1], ARGV[3], -1)
if count > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    latch(0)
    return 0
end
redis.call('HDEL', KEYS[1], ARGV[3])
if redis.call('HLEN', KEYS[1]) == 1 then
    -- Only "mode" is left.
    redis.call('DEL', KEYS[1])
    redis.call(publish, KEYS[2], ARGV[1])
else
    -- The writer still holds read locks: they keep the lock, now in read mode.
    redis.call('HSET', KEYS[1], 'mode', 'read')
end
latch(1)
return 1
