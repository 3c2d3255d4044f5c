-- fenced_write.lua: a storage service that checks fencing tokens (Kleppmann, "How to do distributed
-- locking"). The resource remembers the highest token that ever wrote to it and refuses a write carrying
-- a lower one: a lock holder that was paused past its lease (and so lost the lock without knowing) cannot
-- overwrite what the next holder wrote.
--
-- KEYS[1]  the resource, a HASH with fields "value" and "fence" (highest accepted token)
-- ARGV[1]  the writer's fencing token
-- ARGV[2]  the value to write
-- returns  {1, token}    accepted and written
--          {0, highest}  refused: a newer holder (token `highest`) has already written

local token = tonumber(ARGV[1])
local highest = tonumber(redis.call('HGET', KEYS[1], 'fence'))
if highest ~= nil and token < highest then
    return {0, highest}
end
redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
return {1, token}
