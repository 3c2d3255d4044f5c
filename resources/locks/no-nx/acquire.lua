-- A common mistake: SET with a lease but without NX. It always succeeds, so every caller "takes" the lock,
-- each one overwriting the last holder's token.
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
