-- redisson_write_lock.lua: acquire (or re-enter) the write side of a Redisson-compatible read-write lock.
-- The writer's field in the HASH N is "<uuid>:<thread id>:write"; mode becomes "write". A writer excludes
-- every reader and every other writer.
--
-- KEYS[1]  the lock name N
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's write field "<client uuid>:<thread id>:write"
-- returns  nil acquired · n refused: readers or another writer hold the lock for n more milliseconds

local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
    redis.call('HSET', KEYS[1], 'mode', 'write')
    redis.call('HSET', KEYS[1], ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return nil
end
if mode == 'write' and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    -- Re-entry adds a lease on top of what is left, as Redisson does.
    redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
    local remaining = redis.call('PTTL', KEYS[1])
    redis.call('PEXPIRE', KEYS[1], remaining + tonumber(ARGV[1]))
    return nil
end
return redis.call('PTTL', KEYS[1])
