-- A common mistake: take the lock with no lease. A holder that dies never lets it go.
return redis.call('SETNX', KEYS[1], ARGV[1])
