-- redisson_read_renew.lua: one watchdog tick for a read hold of a Redisson-compatible read-write lock.
-- Renews every timeout key of the owner's read holds, then the hash itself.
--
-- KEYS[1]  the lock name N
-- KEYS[2]  the key prefix {N} of the timeout keys
-- ARGV[1]  lease in milliseconds (the watchdog timeout)
-- ARGV[2]  the owner field "<client uuid>:<thread id>"
-- returns  1 renewed · 0 the owner holds no read lock any more: stop renewing

local holds = redis.call('HGET', KEYS[1], ARGV[2])
if holds == false then
    return 0
end
for k = tonumber(holds), 1, -1 do
    redis.call('PEXPIRE', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. k, ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
