#!/usr/bin/python3
"""LockScope fixture: django-redis 5.2 (Debian python3-django-redis) ``cache.lock()``.

django_redis/client/default.py DefaultClient.lock(): key = make_key(name) ->
django.core.cache.backends.base.default_key_func: "%s:%s:%s" % (KEY_PREFIX, VERSION, name),
i.e. ":1:<name>" with the default empty KEY_PREFIX and VERSION 1; then redis-py's Lock:
SET <key> uuid1().hex NX [PX timeout*1000]. The token is NOT pickled (ordinary cache values are).
Usage: django-redis.py --port N [--prefix P]
"""
import os
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

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    CACHES={
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:%d/0" % args.port,
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient",
                        "SOCKET_CONNECT_TIMEOUT": 5, "SOCKET_TIMEOUT": 5},
        },
        "versioned": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:%d/0" % args.port,
            "KEY_PREFIX": "myapp",
            "VERSION": 3,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 5, "SOCKET_TIMEOUT": 5},
        },
    },
)
django.setup()

import django_redis  # noqa: E402
import redis  # noqa: E402
from django.core.cache import cache, caches  # noqa: E402

raw = django_redis.get_redis_connection("default")
raw.ping()

base = dict(library="django-redis", package="python3-django-redis",
            version=django_redis.__version__,
            debian_version=fx.deb_version("python3-django-redis"),
            redis_py=redis.__version__, django=django.get_version(),
            type="string", kind="mutex")
UUID1 = "uuid.uuid1().hex from redis-py's Lock: 32 lowercase hex chars, time-based UUID (13th char '1')"

versioned = caches["versioned"]
k_forever = cache.make_key(P + "sync-inventory")
k_ttl = cache.make_key(P + "send-newsletter")
k_ver = versioned.make_key(P + "rebuild-sitemap")
k_val = cache.make_key(P + "homepage")
raw.delete(k_forever, k_ttl, k_ver, k_val)

held = []


def take(c, name, key, lease_ms, **kw):
    lock = c.lock(name, **kw)
    if not lock.acquire(blocking=False):
        fx.fail("could not acquire %s" % key)
    held.append(lock)
    fx.made(**base, key=str(key), owner=fx.decode(lock.local.token), owner_meaning=UUID1,
            lease_ms=lease_ms,
            api="caches[...].lock(%r%s).acquire()" % (name, ", " + ", ".join(
                "%s=%r" % kv for kv in kw.items()) if kw else ""))


take(cache, P + "sync-inventory", k_forever, None)                 # timeout=None: no TTL
take(cache, P + "send-newsletter", k_ttl, 60000, timeout=60)
take(versioned, P + "rebuild-sitemap", k_ver, 300000, timeout=300)  # KEY_PREFIX myapp, VERSION 3

cache.set(P + "homepage", {"html": "<h1>hi</h1>"}, timeout=600)
fx.not_lock(str(k_val), "ordinary django-redis cache entry: pickled value (starts with \\x80), same ':1:' key shape as locks",
            type="string")

fx.ready_and_hold()
for lock in held:
    try:
        lock.release()
    except Exception:
        pass
cache.delete(P + "homepage")
sys.exit(0)
