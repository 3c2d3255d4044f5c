-- The textbook lock: SET key token NX PX lease, in one atomic step. Busy: nil.
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
