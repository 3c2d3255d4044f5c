-- redisson_fair_acquire_failed.lua: a waiter of a fair lock gives up (its acquire timeout ran out).
-- It leaves the queue, and everyone behind it moves up one place, so their deadlines come one wait window
-- earlier. Without this, a waiter that gave up would block the queue until its deadline passed.
--
-- KEYS[1]  the queue redisson_lock_queue:{N}
-- KEYS[2]  the deadlines redisson_lock_timeout:{N}
-- ARGV[1]  the owner field of the waiter that gives up "<client uuid>:<thread id>"
-- ARGV[2]  the wait window in milliseconds
-- returns  the number of waiters whose deadline moved

local queue = redis.call('LRANGE', KEYS[1], 0, -1)
local position = 1
while position <= #queue and queue[position] ~= ARGV[1] do
    position = position + 1
end
local moved = 0
for i = position + 1, #queue do
    redis.call('ZINCRBY', KEYS[2], -tonumber(ARGV[2]), queue[i])
    moved = moved + 1
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('LREM', KEYS[1], 0, ARGV[1])
return moved
