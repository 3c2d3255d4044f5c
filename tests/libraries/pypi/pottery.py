"""LockScope fixture: pottery 3.0.1 from PyPI (on redis 8.1.0): Redlock, AIORedlock and NextID.

Runs in tests/libraries/pypi/.venv. What pottery writes:
  base.py Primitive.key: '<_KEY_PREFIX>:<key>'; Redlock/AIORedlock use 'redlock', NextID 'nextid'
  redlock.py Redlock._acquire_masters: value str(uuid.uuid4()), a new one at each acquire;
    __acquire_master: SET redlock:<key> <uuid4> PX int(auto_release_time*1000) NX (10 s by default)
  Redlock.extend: PEXPIRE to the full auto_release_time when the value is still its own, at most
    num_extensions (3) times; pottery never extends by itself
  aioredlock.py AIORedlock: the same SET on a redis.asyncio client
  nextid.py NextID: an id counter written to a quorum of masters (SET nextid:<key> <n> in a Lua script), no TTL
Usage: pottery.py --port N [--prefix P]
"""
import asyncio
import sys
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix

import redis  # noqa: E402
import redis.asyncio  # noqa: E402
from pottery import AIORedlock, NextID, Redlock  # noqa: E402

base = dict(library="pottery", package="pottery", version=version("pottery"), redis_py=version("redis"),
            type="string", kind="mutex")
UUID4 = "str(uuid.uuid4()), a new one at each acquire (pottery/redlock.py Redlock._acquire_masters)"
names = [P + "printer", P + "invoice:42", P + "shower"]
r.delete(*["redlock:" + n for n in names], "nextid:" + P + "tweet-ids")  # a killed earlier run's


def report(lock, api, lease_ms):
    fx.made(**base, key=lock.key, owner=fx.decode(r.get(lock.key)), owner_meaning=UUID4, lease_ms=lease_ms,
            api=api)


# 1. A Redlock on one master, with a lease longer than the default 10 s (nothing renews it).
printer = Redlock(key=names[0], masters={r}, auto_release_time=600)
if not printer.acquire(blocking=False):
    fx.fail("could not acquire redlock:%s" % names[0])
report(printer, "Redlock(key=%r, masters={redis}, auto_release_time=600).acquire(blocking=False)" % names[0],
       600000)

# 2. Extended once by hand: extend() resets the TTL to the full auto_release_time.
invoice = Redlock(key=names[1], masters={r}, auto_release_time=600)
if not invoice.acquire(blocking=False):
    fx.fail("could not acquire redlock:%s" % names[1])
invoice.extend()
report(invoice, "Redlock(key=%r, masters={redis}, auto_release_time=600).acquire(blocking=False), then "
       "extend() once (at most num_extensions=3)" % names[1], 600000)


# 3. AIORedlock on a redis.asyncio client: the same key and value.
async def aio():
    ar = redis.asyncio.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
    shower = AIORedlock(key=names[2], masters={ar}, auto_release_time=600)
    if not await shower.acquire(blocking=False):
        fx.fail("could not acquire redlock:%s" % names[2])
    await ar.aclose()
    return shower


shower = asyncio.run(aio())
report(shower, "await AIORedlock(key=%r, masters={redis.asyncio.Redis}, auto_release_time=600)"
       ".acquire(blocking=False)" % names[2], 600000)

# NextID: a monotonically increasing id kept with a quorum, not a lock.
ids = NextID(key=P + "tweet-ids", masters={r})
next(ids)
next(ids)
fx.not_lock("nextid:" + P + "tweet-ids", "pottery NextID counter: the last id handed out, a plain integer "
            "string without TTL", type="string")

fx.ready_and_hold()
sys.exit(0)
