-- redisson_read_unlock.lua: release one read hold of a Redisson-compatible read-write lock.
-- Deletes the hold's own timeout key. If other holds remain, the hash's TTL becomes the longest of their
-- remaining leases; when the last hold goes, the hash is deleted and "0" is published on
-- redisson_rwlock:{N} (wakes one waiting thread per subscribed client).
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the channel redisson_rwlock:{N}
-- KEYS[3]  the caller's timeout prefix {N}:<uuid>:<thread id>:rwlock_timeout
-- KEYS[4]  the key prefix {N} shared by every holder's timeout keys
-- KEYS[5]  optional: the unlock latch redisson_unlock_latch:{N}:<32 hex request id>
-- ARGV[1]  the message to publish: "0"
-- ARGV[2]  the caller's owner field "<client uuid>:<thread id>"
-- ARGV[3]  latch lifetime in milliseconds
-- ARGV[4]  optional: the publish command, PUBLISH (the default) or SPUBLISH where waiters listen
--          sharded (Redisson >= 3.22 on a Redis >= 7 cluster passes it the same way)
-- returns  1 the lock is gone · 0 other holds remain · nil the caller holds no read lock ·
--         -1 there is no lock at all (its lease expired; "0" is published anyway, as Redisson does)

local publish = ARGV[4] or 'PUBLISH'

local latched = #KEYS >= 5
local function latch(value)
    if latched then
        redis.call('SET', KEYS[5], value, 'PX', ARGV[3])
    end
end
if latched then
    local previous = redis.call('GET', KEYS[5])
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
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then
    return nil
end

local count = redis.call('HINCRBY', KEYS[1], ARGV[2], -1)
if count == 0 then
    redis.call('HDEL', KEYS[1], ARGV[2])
end
redis.call('DEL', KEYS[3] .. ':' .. (count + 1))

-- More fields than "mode": other holds remain. Keep the hash alive as long as their longest lease.
if redis.call('HLEN', KEYS[1]) > 1 then
    local longest = -3
    local fields = redis.call('HKEYS', KEYS[1])
    for _, field in ipairs(fields) do
        local holds = tonumber(redis.call('HGET', KEYS[1], field))
        if type(holds) == 'number' then
            for k = holds, 1, -1 do
                local remaining = redis.call('PTTL', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. k)
                longest = math.max(remaining, longest)
            end
        end
    end
    if longest > 0 then
        redis.call('PEXPIRE', KEYS[1], longest)
        latch(0)
        return 0
    end
    if mode == 'write' then
        latch(0)
        return 0
    end
end

redis.call('DEL', KEYS[1])
redis.call(publish, KEYS[2], ARGV[1])
latch(1)
return 1
