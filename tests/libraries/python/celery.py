#!/usr/bin/python3
"""LockScope fixture: Celery 5.2 (Debian python3-celery) on Redis, via kombu 5.2's transport.

Celery itself (celery/backends/redis.py, celery/beat.py) takes no Redis lock. The only lock
in the stack is kombu's "unacked_mutex" (kombu/transport/redis.py: Mutex(), QoS.restore_visible):
a redis-py Lock  SET unacked_mutex <uuid1 hex> NX PX 300000  held while a worker moves
un-acknowledged messages older than visibility_timeout back to their queues, then released.
Its name gets the transport option `global_keyprefix` (empty by default); this fixture sets
it to --prefix so several fixtures can share a server.
Usage: celery.py --port N [--prefix P]
"""
import contextlib
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

import celery  # noqa: E402
import kombu  # noqa: E402
import redis  # noqa: E402
from celery import Celery  # noqa: E402
from kombu.transport.redis import Mutex  # noqa: E402

url = "redis://127.0.0.1:%d/0" % args.port
app = Celery("proj", broker=url, backend=url)
app.conf.broker_transport_options = {"global_keyprefix": P}
app.conf.broker_connection_timeout = 5
app.conf.broker_connection_retry = False
app.conf.redis_socket_timeout = 5
app.conf.redis_socket_connect_timeout = 5

raw = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
raw.ping()
base = dict(library="Celery (kombu redis transport)", package="python3-celery",
            version=celery.__version__, debian_version=fx.deb_version("python3-celery"),
            kombu=kombu.__version__, kombu_package="python3-kombu", redis_py=redis.__version__)

stack = contextlib.ExitStack()
conn = stack.enter_context(app.connection_for_write())
channel = conn.default_channel
mutex_key = P + channel.unacked_mutex_key
raw.delete(mutex_key, P + "celery", P + "_kombu.binding.celery")

# 1. The unacked mutex, exactly as QoS.restore_visible takes it (non-blocking acquire).
client = stack.enter_context(channel.conn_or_acquire())
stack.enter_context(Mutex(client, channel.unacked_mutex_key, channel.unacked_mutex_expire))
owner = raw.get(mutex_key)
if owner is None:
    fx.fail("kombu Mutex did not create %s" % mutex_key)
fx.made(**base, key=mutex_key, type="string", kind="mutex", owner=fx.decode(owner),
        owner_meaning="uuid.uuid1().hex from redis-py's Lock (32 lowercase hex, 13th char '1')",
        lease_ms=channel.unacked_mutex_expire * 1000,
        guards=[P + channel.unacked_key, P + channel.unacked_index_key],
        api="kombu.transport.redis.Mutex(client, 'unacked_mutex', 300) as in QoS.restore_visible "
            "(broker_transport_options global_keyprefix=%r)" % P)

# 2. Non-lock keys: a sent task (queue list + binding set) and a stored task result.
result = app.send_task("proj.tasks.add", args=(2, 3))
fx.not_lock(P + "celery", "Celery default queue: list of JSON task messages (kombu LPUSH)", type="list")
fx.not_lock(P + "_kombu.binding.celery", "kombu exchange binding set (routing_key\\x06\\x16\\x06\\x16queue)", type="set")
app.backend.store_result(result.id, 5, "SUCCESS")
meta_key = app.backend.get_key_for_task(result.id).decode()
fx.not_lock(meta_key, "Celery result (JSON: status, result, traceback, children, date_done, task_id); "
            "result_expires 1 day; global_keyprefix does not apply to the result backend", type="string")

fx.ready_and_hold()
stack.close()  # releases the mutex (EVALSHA compare-and-delete)
raw.delete(P + "celery", P + "_kombu.binding.celery", meta_key)
sys.exit(0)
