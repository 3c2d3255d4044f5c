-- Delete the lock only while it still holds the caller's token: the check and the delete are one step.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
