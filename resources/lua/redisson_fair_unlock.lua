-- redisson_fair_unlock.lua: release one hold of a Redisson-compatible fair lock.
-- Unlike the reentrant lock, the release does not wake everyone: it publishes "0" only on the channel of
-- the waiter at the head of the queue, redisson_lock__channel:{N}:<uuid>:<thread id>.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the queue redisson_lock_queue:{N}
-- KEYS[3]  the deadlines redisson_lock_timeout:{N}
-- KEYS[4]  the channel prefix redisson_lock__channel:{N} (":<head waiter>" is appended)
-- KEYS[5]  optional: the unlock latch redisson_unlock_latch:{N}:<32 hex request id>
-- ARGV[1]  the message to publish: "0"
-- ARGV[2]  lease in milliseconds, set again while holds remain
-- ARGV[3]  the caller's owner field "<client uuid>:<thread id>"
-- ARGV[4]  the caller's current wall-clock time (epoch ms), for dropping stale waiters
-- ARGV[5]  latch lifetime in milliseconds
-- ARGV[6]  optional: the publish command, PUBLISH (the default) or SPUBLISH where waiters listen
--          sharded (Redisson >= 3.22 on a Redis >= 7 cluster passes it the same way)
-- returns  1 released, or there is no lock at all (its lease expired: Redisson answers 1 then too, so its
--             unlock() of a fair lock that ran out returns without a word) · 0 still held · nil another
--             owner holds it

local publish = ARGV[6] or 'PUBLISH'

local latched = #KEYS >= 5
if latched then
    local previous = redis.call('GET', KEYS[5])
    if previous ~= false then
        return tonumber(previous)
    end
end

-- Drop stale heads first, so the notification goes to a waiter that is still there.
while true do
    local head = redis.call('LINDEX', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('ZSCORE', KEYS[3], head)
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('ZREM', KEYS[3], head)
        redis.call('LPOP', KEYS[2])
    else
        break
    end
end

local function notifyHead()
    local head = redis.call('LINDEX', KEYS[2], 0)
    if head ~= false then
        redis.call(publish, KEYS[4] .. ':' .. head, ARGV[1])
    end
end

if redis.call('EXISTS', KEYS[1]) == 0 then
    -- The lease expired while the head may be sleeping: wake it anyway.
    notifyHead()
    if latched then
        redis.call('SET', KEYS[5], 1, 'PX', ARGV[5])
    end
    return 1
end
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local count = redis.call('HINCRBY', KEYS[1], ARGV[3], -1)
if count > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    if latched then
        redis.call('SET', KEYS[5], 0, 'PX', ARGV[5])
    end
    return 0
end
redis.call('DEL', KEYS[1])
if latched then
    redis.call('SET', KEYS[5], 1, 'PX', ARGV[5])
end
notifyHead()
return 1
