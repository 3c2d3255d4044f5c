"""LockScope fixture: in-house lock patterns written with plain redis-py 8.1.0 commands, the way applications
write their own locks without a library (issue 31: shapes no format of LockScope's knows).

Runs in tests/libraries/pypi/.venv. What it writes (every shape is one seen in applications' own code):
  leader election: '<p>scheduler/leader' = '<hostname>:<pid>', SET NX PX 6000; a heartbeat thread runs a
    compare-and-PEXPIRE script every 2 s (a lease renewed at a third of its TTL)
  multi-resource lock: '<p>inventory:sku-1001', '…:sku-1002', '…:sku-1003' all = one base64 token
    (b64encode(urandom(18)): 24 characters of A-Za-z0-9+/, never only hex), SET NX PX 600000 in one MULTI
  counting semaphore: '<p>pool:gpu-slots', a sorted set of '<hostname>:<pid>:<n>' -> acquire time in ms, 2 of
    4 permits taken (ZADD NX after ZREMRANGEBYSCORE of expired ones), PEXPIRE 30000 on the set, refreshed with
    the members' scores every 3 s by the holder
  JSON owner: '<p>exports/nightly' = '{"owner": "<hostname>:<pid>", "acquired_at": <ms>, "purpose": …}',
    SET NX PX 900000
  host:pid mutex: '<p>mutex/db-migrate' = '<hostname>:<pid>', SET NX EX 300
  redis-py Lock kept alive by its holder: '<p>lock:report-builder' = uuid1().hex, Lock(timeout=20), and a
    thread calls lock.extend(20, replace_ttl=True) every 10 s (what job runners built on redis-py do)
  not a lock: '<p>throttle:password-lock:user-7', a failed-login counter (INCR four times, EXPIRE 3600)
Usage: in-house.py --port N [--prefix P]
"""
import base64
import json
import os
import socket
import sys
import threading
import time
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix
ME = "%s:%d" % (socket.gethostname(), os.getpid())
base = dict(library="in-house", package="in-house (redis-py %s)" % version("redis"), version="-",
            type="string", kind="mutex")
keys = {"leader": P + "scheduler/leader", "multi": [P + "inventory:sku-%d" % n for n in (1001, 1002, 1003)],
        "sem": P + "pool:gpu-slots", "json": P + "exports/nightly", "hostpid": P + "mutex/db-migrate",
        "throttle": P + "throttle:password-lock:user-7", "pylock": P + "lock:report-builder"}
r.delete(keys["leader"], *keys["multi"], keys["sem"], keys["json"], keys["hostpid"], keys["throttle"],
         keys["pylock"])


def must(ok, what):
    if not ok:
        fx.fail("could not %s" % what)


# 1. Leader election, renewed every 2 s.
must(r.set(keys["leader"], ME, nx=True, px=6000), "elect " + keys["leader"])
renew_leader = r.register_script(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end "
    "return 0")
fx.made(**base, case="leader", key=keys["leader"], owner=ME, owner_meaning="'<hostname>:<pid>' of the leader",
        lease_ms=6000,
        renewal={"every_ms": 2000, "rule": "heartbeat thread: GET == self -> PEXPIRE 6000, every 2 s"},
        api="SET key '<host>:<pid>' NX PX 6000")

# 2. One lock on three resources: one base64 token in every key, one TTL.
token = base64.b64encode(os.urandom(18)).decode()
with r.pipeline(transaction=True) as p:
    for k in keys["multi"]:
        p.set(k, token, nx=True, px=600000)
    must(all(p.execute()), "lock " + ", ".join(keys["multi"]))
for k in keys["multi"]:
    fx.made(**base, case="multi-" + k.rsplit(":", 1)[1], key=k, owner=token,
            owner_meaning="b64encode(urandom(18)), one token for the whole group", lease_ms=600000,
            group=keys["multi"], api="MULTI; SET <each key> <token> NX PX 600000; EXEC")

# 3. A counting semaphore (4 permits, 2 taken) under a name with no lock word, kept alive by its holder.
permits = ["%s:%d" % (ME, n) for n in (1, 2)]
now = int(time.time() * 1000)
r.zremrangebyscore(keys["sem"], "-inf", now - 30000)
must(r.zadd(keys["sem"], {m: now for m in permits}, nx=True) == 2, "take two permits of " + keys["sem"])
r.pexpire(keys["sem"], 30000)
fx.made(**dict(base, type="zset", kind="semaphore"), case="semaphore", key=keys["sem"], owner=permits,
        owner_meaning="'<hostname>:<pid>:<n>' per permit, scored by its acquire (refresh) time in ms",
        lease_ms=30000, limit=4,
        renewal={"every_ms": 3000,
                 "rule": "holder refreshes its members' scores and PEXPIRE 30000 every 3 s"},
        api="ZREMRANGEBYSCORE key -inf now-30000; ZADD key NX now member; PEXPIRE key 30000")

# 4. A JSON value that names its owner.
doc = json.dumps({"owner": ME, "acquired_at": now, "purpose": "nightly export"})
must(r.set(keys["json"], doc, nx=True, px=900000), "lock " + keys["json"])
fx.made(**base, case="json-owner", key=keys["json"], owner=ME, owner_meaning="the JSON value's \"owner\"",
        lease_ms=900000, api="SET key '{\"owner\": …}' NX PX 900000")

# 5. A host:pid mutex.
must(r.set(keys["hostpid"], ME, nx=True, ex=300), "lock " + keys["hostpid"])
fx.made(**base, case="host-pid", key=keys["hostpid"], owner=ME, owner_meaning="'<hostname>:<pid>'",
        lease_ms=300000, api="SET key '<host>:<pid>' NX EX 300")

# 6. redis-py's Lock with a 20 s timeout, extended every 10 s by its holder.
# thread_local=False: the holder's renewer thread extends it (redis-py keeps the token per thread by default,
# and extend() from another thread then fails: the fixture's renewals stopped after 10 s before this).
pylock = r.lock(keys["pylock"], timeout=20, thread_local=False)
must(pylock.acquire(blocking=False), "lock " + keys["pylock"])
fx.made(**dict(base, library="redis-py"), case="redis-py-lock-renewed", key=keys["pylock"],
        owner=pylock.local.token.decode(), owner_meaning="redis-py Lock token: uuid1().hex", lease_ms=20000,
        renewal={"every_ms": 10000, "rule": "holder thread: lock.extend(20, replace_ttl=True) every 10 s"},
        api="r.lock(key, timeout=20).acquire(blocking=False)")

# 7. A rate limiter's counter whose name holds a lock word: not a lock.
for _ in range(4):
    r.incr(keys["throttle"])
r.expire(keys["throttle"], 3600)
fx.not_lock(keys["throttle"],
            "failed-login counter (INCR per failure, EXPIRE 3600): holds 4, nobody holds it", type="string", case="throttle")


def renew_sem():
    t = int(time.time() * 1000)
    with r.pipeline(transaction=True) as p:
        p.zadd(keys["sem"], {m: t for m in permits}, xx=True)
        p.pexpire(keys["sem"], 30000)
        p.execute()


# One renewer thread per lock, each on its own period, as in-house heartbeats are written: wait, renew, again.
# (An earlier single loop woke every second and renewed when int(time.time()) was a multiple of the period;
# its wake-ups drifted by about 8 ms a second, so every two minutes or so a whole second was skipped, and
# with it a renewal: a renewer that really missed a beat, which the watch rightly flagged.)
def renewer(period_s, renew, what):
    def loop():
        while not fx.stopping():
            threading.Event().wait(period_s)
            try:
                renew()
            except Exception as e:  # the connection goes away when the driver exits
                if not fx.stopping():
                    fx.fail("renewing %s failed: %s" % (what, e))
    threading.Thread(target=loop, daemon=True).start()


renewer(2, lambda: renew_leader(keys=[keys["leader"]], args=[ME, 6000]), keys["leader"])
renewer(10, lambda: pylock.extend(20, replace_ttl=True), keys["pylock"])
renewer(3, renew_sem, keys["sem"])
fx.ready_and_hold()
sys.exit(0)
