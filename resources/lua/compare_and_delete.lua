-- compare_and_delete.lua: release a string lock only while it still holds our token.
-- Used by set-nx-px-lua, set-nx-px-lua-watchdog and redlock (on every server).
--
-- Why a script: a GET followed by a DEL sent by the client leaves a gap between the two commands. If the
-- lease expires in that gap and another client takes the lock, the DEL deletes *their* lock. Redis runs a
-- script as one step, so nothing can happen between the comparison and the delete.
--
-- KEYS[1]  the lock key (a STRING holding the owner's token)
-- ARGV[1]  the token this holder wrote when it acquired the lock
-- returns  1  released: the key held our token and is now deleted
--          0  nothing to release: the key is gone (the lease expired, or it was never ours)
--         -1  not ours: another holder's token is in the key; it is left alone

local current = redis.call('GET', KEYS[1])
if current == false then
    return 0
end
if current == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return -1
