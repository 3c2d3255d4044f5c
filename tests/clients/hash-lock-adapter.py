#!/usr/bin/env python3
"""A client adapter whose locks are hashes, the way Redisson lays them out (field <client id>:<thread> ->
hold count, PEXPIRE for the lease), written with redis-py's Lua scripts. It exists to hold the conformance
check (conformance.py) to locks that are not strings: a check that GETs the lock's key meets WRONGTYPE here.
Not a library anyone runs; LockScope's own redisson-reentrant is the real imitation, Redisson the real thing.
"""
import json
import sys
import time
import uuid

import redis

SUPPORTS = {"lease": True, "no_lease": True, "extend": True, "auto_renewal": False, "renewal_events": False,
            "reentrant": True, "fencing": False, "release_not_held": True}

# KEYS[1] the lock; ARGV[1] lease ms (0: none), ARGV[2] the owner field. nil when taken, else the hold count.
ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 and redis.call('hexists', KEYS[1], ARGV[2]) == 0 then return nil end
local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
if tonumber(ARGV[1]) > 0 then redis.call('pexpire', KEYS[1], ARGV[1]) end
return count
"""
# nil: not this owner's; 0: still held (count left); 1: deleted.
RELEASE = """
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then return nil end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then return 0 end
redis.call('del', KEYS[1])
return 1
"""
EXTEND = """
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then return 0 end
return redis.call('pexpire', KEYS[1], ARGV[1])
"""


def main():
    conn, owner, scripts = None, uuid.uuid4().hex + ":1", {}
    held = {}  # lock -> hold count
    for line in sys.stdin:
        request = json.loads(line)
        op, reply = request["op"], {"id": request["id"], "ok": True}
        try:
            if op == "hello":
                server = request["servers"][0]
                conn = redis.Redis(host=server["host"], port=server["port"], socket_timeout=5)
                conn.ping()
                scripts = {name: conn.register_script(text)
                           for name, text in (("acquire", ACQUIRE), ("release", RELEASE), ("extend", EXTEND))}
                reply.update(library="hash-lock", version="1", supports=SUPPORTS)
            elif op == "acquire":
                lock, deadline = request["lock"], time.monotonic() + request["wait_ms"] / 1000
                while scripts["acquire"](keys=[lock], args=[request["lease_ms"], owner]) is None:
                    if time.monotonic() >= deadline:
                        reply.update(ok=False, reason="timeout")
                        break
                    time.sleep(0.02)
                else:
                    held[lock] = held.get(lock, 0) + 1
                    reply["token"] = owner
            elif op == "release":
                lock = request["lock"]
                if not held.get(lock):
                    reply.update(ok=False, reason="not-held", error="not held by this worker")
                else:
                    held[lock] -= 1
                    if scripts["release"](keys=[lock], args=[owner]) is None:
                        held[lock] = 0
                        reply.update(ok=False, reason="not-held", error="the lock is no longer this owner's")
            elif op == "extend":
                if not held.get(request["lock"]) or not scripts["extend"](keys=[request["lock"]],
                                                                          args=[request["lease_ms"], owner]):
                    reply.update(ok=False, reason="not-held", error="the lock is no longer this owner's")
            elif op == "read":
                value = conn.get(request["key"])
                reply["value"] = None if value is None else int(value)
            elif op == "write":
                conn.set(request["key"], request["value"])
            elif op != "quit":
                reply.update(ok=False, reason="unsupported", error="unknown op " + op)
        except Exception as e:
            reply.update(ok=False, reason="error", error=f"{type(e).__name__}: {e}")
        print(json.dumps(reply), flush=True)
        if op == "quit":
            return


main()
