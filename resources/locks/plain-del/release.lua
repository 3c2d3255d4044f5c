-- A common mistake: delete the lock without asking whose it is. A holder whose lease ran out deletes the
-- next holder's lock.
return redis.call('DEL', KEYS[1])
