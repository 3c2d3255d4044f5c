-- redisson_read_lock.lua: acquire (or re-enter) the read side of a Redisson-compatible read-write lock.
-- Storage, as Redisson 3.x keeps it, all in the HASH N:
--   mode                      "read" or "write"
--   <uuid>:<thread id>        how many read holds that thread has
--   <uuid>:<thread id>:write  how many write holds (see redisson_write_lock.lua)
-- Every read hold k also has its own STRING {N}:<uuid>:<thread id>:rwlock_timeout:<k> = "1" with the
-- lease as TTL, so one reader's expiry does not end the others' leases; the hash lives as long as the
-- longest of them.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the caller's timeout prefix {N}:<uuid>:<thread id>:rwlock_timeout
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's owner field "<client uuid>:<thread id>"
-- ARGV[3]  the caller's write field "<client uuid>:<thread id>:write"
-- returns  nil acquired · n refused: a writer holds the lock for n more milliseconds

local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
    redis.call('HSET', KEYS[1], 'mode', 'read')
    redis.call('HSET', KEYS[1], ARGV[2], 1)
    redis.call('SET', KEYS[2] .. ':1', 1, 'PX', ARGV[1])
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return nil
end
-- Readers share the lock; a thread that holds the write lock may also read.
if mode == 'read' or (mode == 'write' and redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1) then
    local hold = redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
    redis.call('SET', KEYS[2] .. ':' .. hold, 1, 'PX', ARGV[1])
    local remaining = redis.call('PTTL', KEYS[1])
    redis.call('PEXPIRE', KEYS[1], math.max(remaining, tonumber(ARGV[1])))
    return nil
end
return redis.call('PTTL', KEYS[1])
