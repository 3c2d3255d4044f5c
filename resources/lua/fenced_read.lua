-- fenced_read.lua: a read of the fenced store that shows it the reader's token. A holder reads, computes and
-- writes back; if the store saw tokens only on writes, a holder paused past its lease could still write
-- before the next holder does, and the next holder's write (computed from a read taken before it) would then
-- lose the stale one's update. Remembering the reader's token makes the store refuse every later write that
-- carries an older one.
--
-- KEYS[1]  the resource, a HASH with fields "value" and "fence" (highest token seen)
-- ARGV[1]  the reader's fencing token
-- returns  {value or nil, the highest token seen before this read, or -1}

local token = tonumber(ARGV[1])
local highest = tonumber(redis.call('HGET', KEYS[1], 'fence'))
if highest == nil or token > highest then
    redis.call('HSET', KEYS[1], 'fence', ARGV[1])
end
return {redis.call('HGET', KEYS[1], 'value') or false, highest or -1}
