-- Put the lease back to ARGV[2] ms, only while the lock is still the caller's.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
