#!/usr/bin/env python3
"""LockScope client adapter for redis-py's Lock (docs/client-protocol.md), with Debian's python3-redis.

It is the protocol document's complete example plus one option, `timeout` (default true). With
{"timeout": false} every lock is made with timeout=None whatever lease_ms says, as applications that forget
the timeout do: a holder that crashes leaves a lock that never expires, which is the case LockScope's
crash-while-holding preset shows.
"""
import json
import sys

import redis
from redis.exceptions import LockError


def supports(timeout):
    # Without a timeout there is no lease to honour and nothing to extend (redis-py refuses to extend a lock
    # with no timeout).
    return {"lease": timeout, "no_lease": True, "extend": timeout, "auto_renewal": False,
            "renewal_events": False, "reentrant": False, "fencing": False, "release_not_held": True}


def main():
    conn, held, timeout = None, {}, True
    for line in sys.stdin:
        request = json.loads(line)
        op, reply = request["op"], {"id": request["id"], "ok": True}
        try:
            if op == "hello":
                server = request["servers"][0]
                conn = redis.Redis(host=server["host"], port=server["port"])
                timeout = (request.get("options") or {}).get("timeout", True) is not False
                reply.update(library="redis-py", version=redis.__version__, supports=supports(timeout))
            elif op == "acquire":
                lease = request["lease_ms"] / 1000 or None  # 0: never expires
                lock = conn.lock(request["lock"], timeout=lease if timeout else None, sleep=0.02)
                wait = request["wait_ms"] / 1000
                # blocking_timeout bounds the retries (every `sleep` s); non-blocking tries once.
                if lock.acquire(blocking=wait > 0, blocking_timeout=wait):
                    held[request["lock"]] = lock
                    reply["token"] = lock.local.token.decode()
                else:
                    reply.update(ok=False, reason="timeout")
            elif op == "release":
                held.pop(request["lock"]).release()
            elif op == "extend" and not timeout:
                reply.update(ok=False, reason="unsupported", error="a lock without timeout cannot be extended")
            elif op == "extend":
                held[request["lock"]].extend(request["lease_ms"] / 1000, replace_ttl=True)
            elif op == "read":
                value = conn.get(request["key"])
                reply["value"] = None if value is None else int(value)
            elif op == "write":
                conn.set(request["key"], request["value"])
            elif op != "quit":
                reply.update(ok=False, reason="unsupported", error="unknown op " + op)
        except LockError as e:  # LockNotOwnedError: the lock expired or is someone else's
            reply.update(ok=False, reason="not-held", error=str(e))
        except KeyError:  # release or extend of a lock this worker does not hold
            reply.update(ok=False, reason="not-held", error="not held by this worker")
        except Exception as e:  # a connection refused or lost, a Redis error: one line for the event log
            reply.update(ok=False, reason="error", error=f"{type(e).__name__}: {e}")
        print(json.dumps(reply), flush=True)
        if op == "quit":
            return


main()
