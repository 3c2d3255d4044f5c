#!/usr/bin/python3
"""LockScope fixture: redis-py 4.3.4 (Debian python3-redis) ``redis.lock.Lock``.

Lock.do_acquire (redis/lock.py): SET <name> <token> NX [PX int(timeout*1000)]
  name  = exactly the name given to Redis.lock() (no prefix of its own)
  token = uuid.uuid1().hex (32 lowercase hex chars, a time-based UUID: char 13 is "1")
          unless acquire(token=...) supplies one
  no TTL at all when timeout is None (or 0)
Nothing is stored for blocked waiters: they retry SET NX every `sleep` (0.1 s) client-side.
Usage: redis-py.py --port N [--prefix P]
"""
import sys

import os as _os  # noqa: E402
sys.dont_write_bytecode = True  # keep the source tree clean
_HERE = _os.path.dirname(_os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import _fixture as fx  # noqa: E402

# This directory must not shadow the libraries (rq.py, celery.py...).
sys.path[:] = [p for p in sys.path if _os.path.abspath(p or ".") != _HERE]

args = fx.start(__doc__)
P = args.prefix

import redis  # noqa: E402

r = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
r.ping()

base = dict(library="redis-py", package="python3-redis", version=redis.__version__,
            debian_version=fx.deb_version("python3-redis"), type="string", kind="mutex")
UUID1 = "uuid.uuid1().hex: 32 lowercase hex chars, time-based UUID (13th char '1', 17th in [89ab]; last 12 = host MAC/node) (redis/lock.py Lock.acquire)"

names = [P + "jobs:reindex", P + "jobs:billing", P + "jobs:float-ttl", P + "jobs:custom-token"]
r.delete(*names)  # leftovers of a killed earlier run (the first one never expires)

held = []


def take(name, api, lease_ms, owner_meaning=UUID1, token=None, **lock_kw):
    lock = r.lock(name, **lock_kw)
    if not lock.acquire(blocking=False, token=token):
        fx.fail("could not acquire %s" % name)
    held.append(lock)
    fx.made(**base, key=name, owner=fx.decode(lock.local.token), owner_meaning=owner_meaning,
            lease_ms=lease_ms, api=api)
    return lock


take(names[0], "Redis.lock('%s', timeout=None).acquire()  (SET NX, never expires)" % names[0],
     None, timeout=None)
billing = take(names[1], "Redis.lock('%s', timeout=90).acquire()" % names[1], 90000, timeout=90)
take(names[2], "Redis.lock('%s', timeout=45.5).acquire()  (float seconds -> PX 45500)" % names[2],
     45500, timeout=45.5)
take(names[3], "Redis.lock('%s', timeout=120).acquire(token='host-7/worker-2')" % names[3], 120000,
     owner_meaning="caller-chosen token (Lock.acquire(token=...))", token="host-7/worker-2",
     timeout=120)

# A blocked waiter on the billing lock: it polls client-side and stores nothing in Redis.
fx.gives_up(r.lock(names[1], timeout=90, sleep=0.1, blocking_timeout=0.5).acquire)

fx.ready_and_hold()
for lock in held:
    try:
        lock.release()
    except Exception:
        pass
sys.exit(0)
