"""LockScope fixture: limits 5.8.0 from PyPI (RedisStorage on redis 8.1.0): rate-limiter counters, not locks.
A library outside the catalog (issue 31); none of its keys may raise an alarm, even under identifiers that
hold a lock word.

Runs in tests/libraries/pypi/.venv. What limits writes (limits/limits.py RateLimitItem.key_for,
limits/storage/redis.py):
  key '<key_prefix>:<namespace>/<identifiers joined by />/<amount>/<multiples>/<granularity>', key_prefix
    'LIMITS' and namespace 'LIMITER' by default
  FixedWindowRateLimiter.hit: INCRBY key 1, EXPIRE key <window> on the first hit: a small integer with a TTL
  MovingWindowRateLimiter.hit: a list of hit times (LPUSH of float seconds), EXPIRE <window>
  SlidingWindowCounterRateLimiter.hit: two counters, the current window and '<key>/-1' the previous one
Usage: limits.py --port N [--prefix P]
"""
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix

from limits import parse  # noqa: E402
from limits.storage import RedisStorage  # noqa: E402
from limits.strategies import (FixedWindowRateLimiter, MovingWindowRateLimiter,  # noqa: E402
                               SlidingWindowCounterRateLimiter)

prefix = P + "LIMITS"
for k in r.scan_iter(match=prefix + ":*", count=500):
    r.delete(k)  # a killed earlier run's
storage = RedisStorage("redis://127.0.0.1:%d" % args.port, key_prefix=prefix)
cases = [
    (FixedWindowRateLimiter, "5/hour", ("password-lock", "user-7"), 4),
    (FixedWindowRateLimiter, "100/minute", ("api", "tenant-42"), 17),
    (MovingWindowRateLimiter, "10/minute", ("login", "mutex-admin"), 3),
    (SlidingWindowCounterRateLimiter, "5/hour", ("reset-password", "lease-9"), 2),
]
for strategy, rate, ids, hits in cases:
    limiter = strategy(storage)
    for _ in range(hits):
        if not limiter.hit(parse(rate), *ids):
            fx.fail("limits refused a hit below its rate")
for k in sorted(r.scan_iter(match=prefix + ":*", count=500)):
    key = fx.decode(k)
    fx.not_lock(key, "limits %s rate-limiter key (%s): hits counted in a window, nobody holds it"
                % (fx.decode(r.type(k)), "a list of hit times" if fx.decode(r.type(k)) == "list"
                   else "an integer counter"), type=fx.decode(r.type(k)), case=key.split("/")[1])
fx.ready_and_hold()
sys.exit(0)
