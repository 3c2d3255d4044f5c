"""A LockScope client adapter for python-redis-lock 4.0.1 (PyPI: python-redis-lock; module redis_lock), written
from docs/client-protocol.md alone, as an outside author would. Not shipped: it holds the conformance check to
a correct adapter whose library is unlike the shipped ones — leases in whole seconds (rounded up and said so in
lease_ms), a timeout it refuses when longer than the lease (the adapter waits itself instead), and a release
that rewrites a signal list (lock-signal:<name>, expiring after 1 s) which the previous release also wrote.
"""
import json
import math
import sys
import time

import redis
import redis_lock

SUPPORTS = {"lease": True, "no_lease": True, "extend": True, "auto_renewal": False, "renewal_events": False,
            "reentrant": False, "fencing": False, "release_not_held": True}


def seconds(lease_ms):
    """python-redis-lock takes whole seconds: a lease is rounded up, never down (0: no expiry)."""
    return math.ceil(lease_ms / 1000) if lease_ms else None


def main():
    conn, held = None, {}
    for line in sys.stdin:
        request = json.loads(line)
        op, reply = request["op"], {"id": request["id"], "ok": True}
        try:
            if op == "hello":
                server = request["servers"][0]
                conn = redis.StrictRedis(host=server["host"], port=server["port"])
                reply.update(library="python-redis-lock", version=redis_lock.__version__, supports=SUPPORTS)
            elif op == "acquire":
                expire = seconds(request["lease_ms"])
                lock = redis_lock.Lock(conn, request["lock"], expire=expire)
                # Its own timeout is whole seconds and refused above the lease: wait here, in small steps.
                deadline = time.monotonic() + request["wait_ms"] / 1000
                while not lock.acquire(blocking=False):
                    if time.monotonic() >= deadline:
                        reply.update(ok=False, reason="timeout")
                        break
                    time.sleep(0.02)
                else:
                    held[request["lock"]] = lock
                    reply["token"] = lock.id
                    if expire and expire * 1000 != request["lease_ms"]:
                        reply["lease_ms"] = expire * 1000  # the lease really set
            elif op == "release":
                held.pop(request["lock"]).release()
            elif op == "extend":
                expire = seconds(request["lease_ms"])
                held[request["lock"]].extend(expire)
                if expire * 1000 != request["lease_ms"]:
                    reply["lease_ms"] = expire * 1000
            elif op == "read":
                value = conn.get(request["key"])
                reply["value"] = None if value is None else int(value)
            elif op == "write":
                conn.set(request["key"], request["value"])
            elif op != "quit":
                reply.update(ok=False, reason="unsupported", error="unknown op " + op)
        except redis_lock.NotAcquired as e:  # expired, or someone else's now
            reply.update(ok=False, reason="not-held", error=str(e))
        except KeyError:  # release or extend of a lock this worker does not hold
            reply.update(ok=False, reason="not-held", error="not held by this worker")
        except Exception as e:
            reply.update(ok=False, reason="error", error=f"{type(e).__name__}: {e}")
        print(json.dumps(reply), flush=True)
        if op == "quit":
            return


main()
