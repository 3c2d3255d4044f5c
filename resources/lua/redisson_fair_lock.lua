-- redisson_fair_lock.lua: acquire a Redisson-compatible fair lock (RFairLock): first come, first served.
-- Besides the lock HASH N (as in the reentrant lock) there are two companions without a TTL:
--   redisson_lock_queue:{N}    a LIST of waiting owners "<uuid>:<thread id>" in arrival order
--   redisson_lock_timeout:{N}  a ZSET: each waiter with the epoch-millisecond deadline after which it is
--                              dropped from the queue if it has not come back (it crashed or gave up)
-- Deadlines come from the *clients'* wall clocks (ARGV[4]): a client whose clock runs ahead drops other
-- waiters early, one whose clock runs behind keeps stale waiters too long. That is this lock's known flaw.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the queue redisson_lock_queue:{N}
-- KEYS[3]  the deadlines redisson_lock_timeout:{N}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's owner field "<client uuid>:<thread id>"
-- ARGV[3]  how long a waiter may stay away before it loses its place (ms; Redisson: 5 minutes)
-- ARGV[4]  the caller's current wall-clock time (epoch ms)
-- returns  nil  acquired or re-entered
--          n    refused; the caller is (now) in the queue and should wait about n ms, or until it is
--               notified on redisson_lock__channel:{N}:<uuid>:<thread id>

local now = tonumber(ARGV[4])

-- 1. Drop waiters at the head of the queue whose deadline has passed.
while true do
    local head = redis.call('LINDEX', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('ZSCORE', KEYS[3], head)
    if deadline ~= false and tonumber(deadline) <= now then
        redis.call('ZREM', KEYS[3], head)
        redis.call('LPOP', KEYS[2])
    else
        break
    end
end

-- 2. Free lock, and nobody is ahead of the caller: take it, leave the queue, and pull everyone else's
--    deadline forward by one wait window (they moved up one place).
if redis.call('EXISTS', KEYS[1]) == 0
    and (redis.call('EXISTS', KEYS[2]) == 0 or redis.call('LINDEX', KEYS[2], 0) == ARGV[2]) then
    redis.call('LPOP', KEYS[2])
    redis.call('ZREM', KEYS[3], ARGV[2])
    local waiters = redis.call('ZRANGE', KEYS[3], 0, -1)
    for i = 1, #waiters do
        redis.call('ZINCRBY', KEYS[3], -tonumber(ARGV[3]), waiters[i])
    end
    redis.call('HSET', KEYS[1], ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return nil
end

-- 3. Re-entry by the holder.
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return nil
end

-- 4. Already waiting: report the holder's remaining lease.
if redis.call('ZSCORE', KEYS[3], ARGV[2]) ~= false then
    return math.max(0, redis.call('PTTL', KEYS[1]))
end

-- 5. New waiter: join the tail. Its deadline is the previous waiter's deadline (or the end of the current
--    lease) plus one wait window.
local last = redis.call('LINDEX', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] and redis.call('ZSCORE', KEYS[3], last) ~= false then
    ttl = tonumber(redis.call('ZSCORE', KEYS[3], last)) - now
else
    ttl = redis.call('PTTL', KEYS[1])
end
if redis.call('ZADD', KEYS[3], ttl + tonumber(ARGV[3]) + now, ARGV[2]) == 1 then
    redis.call('RPUSH', KEYS[2], ARGV[2])
end
return ttl
