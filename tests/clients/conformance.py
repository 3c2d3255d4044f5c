#!/usr/bin/python3
"""Conformance check for LockScope client adapters (docs/client-protocol.md).

Runs an adapter the way LockScope does -- one process per worker, JSON lines on stdin/stdout -- against a
redis-server of its own (127.0.0.1, a free port, no persistence), and checks what the protocol promises:
the hello, acquire and release, a second process refused while the lock is held (and served once it is
released), not-held answers, the lease (the key's PTTL), no lease, extend, auto-renewal, the counter,
unknown ops, replies in order with matching ids, nothing but JSON on stdout, and an exit on stdin EOF.
What an adapter announces in `supports` decides which checks apply; a check it opts out of is SKIPPED.

    /usr/bin/python3 tests/clients/conformance.py [--options JSON] -- COMMAND [ARG...]
    /usr/bin/python3 tests/clients/conformance.py --manifest resources/clients/<id>/client.json [--dir FOLDER]
                                                  [--options JSON]
    /usr/bin/python3 tests/clients/conformance.py --doc-example docs/client-protocol.md

The adapter inherits this environment (set NODE_PATH for a Node adapter). --options is what LockScope passes
as hello's `options` (a scenario's client.options). Exit status: 0 all passed, 1 a check failed, 2 could
not run. Needs redis-server on PATH and python3-redis (Debian's /usr/bin/python3 has it).
"""
import argparse
import json
import os
import queue
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

SUPPORTS_KEYS = ("lease", "no_lease", "extend", "auto_renewal", "renewal_events", "reentrant", "fencing",
                 "release_not_held")
REASONS = {"hello": {"error"}, "acquire": {"timeout", "error"}, "release": {"not-held", "error"},
           "extend": {"not-held", "unsupported", "error"}, "read": {"error"}, "write": {"error"}}
REPLY_TIMEOUT = 5.0  # seconds an adapter may take to answer a request that does not wait for a lock
MAX_SIGNAL_TTL_MS = 10000  # a key a release leaves for waiters must expire within this (see is_signal)
EXIT_TIMEOUT = 2.0   # seconds an adapter may take to exit once its stdin closed (or after quit)
HELLO_TIMEOUT = 30.0  # seconds a hello may take, as LockScope's client.hello_timeout_ms (a JVM starting)
MAX_WATCHED_LEASE_MS = 5000  # auto-renewal is watched over two leases of at most this


class CheckFailed(Exception):
    pass


class Skipped(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A redis-server of the check's own, stopped at the end."""

    def __init__(self):
        self.process = None
        for _ in range(5):  # another process may take the free port before redis-server binds it
            self.port = free_port()
            self.process = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
            deadline = time.monotonic() + 5
            while self.process.poll() is None and time.monotonic() < deadline:
                try:
                    if self.client.ping():
                        return
                except redis.ConnectionError:
                    time.sleep(0.02)  # redis-server is still starting
            self.stop()
        raise RuntimeError("could not start redis-server")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Adapter:
    """One adapter process: requests in, replies and events out, every stdout line checked."""

    def __init__(self, command, name, problems):
        self.name, self.problems, self.next_id = name, problems, 0
        self.replies, self.events = queue.Queue(), []
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.process.stdout:
            arrived = time.monotonic()
            try:
                message = json.loads(raw.decode("utf-8"))
            except ValueError:
                self.problems.append(f"{self.name}: not a JSON line on stdout: {raw[:200]!r}")
                continue
            if not isinstance(message, dict):
                self.problems.append(f"{self.name}: a JSON line that is not an object: {raw[:200]!r}")
            elif "id" in message:
                self.replies.put((arrived, message))
            elif isinstance(message.get("event"), str):
                self.events.append((arrived, message))
                if message["event"] not in ("renewed", "lost") or not isinstance(message.get("lock"), str):
                    self.problems.append(f"{self.name}: an event that is not renewed/lost with a lock: {message}")
            else:
                self.problems.append(f"{self.name}: a line that is neither a reply nor an event: {message}")
        self.replies.put((time.monotonic(), None))  # stdout closed

    def send(self, op, **fields):
        self.next_id += 1
        self.write({"id": self.next_id, "op": op, **fields})
        return self.next_id, op

    def write(self, *requests):
        data = "".join(json.dumps(r) + "\n" for r in requests).encode()
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except BrokenPipeError:
            raise CheckFailed(f"{self.name} closed its stdin (exited with {self.process.poll()})")

    def reply(self, sent, timeout=REPLY_TIMEOUT):
        """The reply to `sent` (id, op): it must be the next one, with that id, well formed."""
        request_id, op = sent
        try:
            _, message = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise CheckFailed(f"{self.name}: no reply to {op} (id {request_id}) within {timeout:g} s")
        expect(message is not None, f"{self.name} exited before replying to {op} (status {self.process.poll()})")
        expect(message.get("id") == request_id,
               f"{self.name}: reply with id {message.get('id')!r} where id {request_id} was due: {message}")
        expect(isinstance(message.get("ok"), bool), f"{self.name}: reply without a boolean ok: {message}")
        if not message["ok"]:
            reason = message.get("reason")
            allowed = REASONS.get(op, {"unsupported"})
            expect(reason in allowed, f"{self.name}: {op} failed with reason {reason!r}, not one of {sorted(allowed)}")
            if reason == "error":
                expect(isinstance(message.get("error"), str) and message["error"],
                       f"{self.name}: reason error without an error text: {message}")
        return message

    def call(self, op, timeout=REPLY_TIMEOUT, **fields):
        """Sends a request and waits for its reply; returns (reply, seconds it took)."""
        started = time.monotonic()
        message = self.reply(self.send(op, **fields), timeout)
        return message, time.monotonic() - started

    def close_and_wait(self, timeout=EXIT_TIMEOUT):
        """Closes stdin; True if the process exited within `timeout`."""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(2)

    def stderr_tail(self, lines=8):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace").splitlines()[-lines:]


class Conformance:
    def __init__(self, command, options):
        self.command, self.options = command, options
        self.problems, self.adapters, self.results = [], [], []
        self.server = RedisServer()
        self.redis = self.server.client
        self.supports = {}
        self.held_keys = {}  # lock -> the keys seen while it was held
        self.held_tokens = {}  # lock -> the token its acquire answered (None when it gave none)
        self.run_id = secrets.token_hex(3)

    # --- helpers -------------------------------------------------------------------------------------------

    def start(self, name):
        """A new adapter process, greeted; fails the check if its hello does not work."""
        adapter = Adapter(self.command, name, self.problems)
        self.adapters.append(adapter)
        reply, _ = adapter.call("hello", timeout=HELLO_TIMEOUT, protocol=1, worker=name,
                                servers=[{"host": "127.0.0.1", "port": self.server.port}], options=self.options)
        expect(reply["ok"], f"{name}: hello failed: {reply}")
        return adapter

    def lock_name(self, what):
        return f"conf-{self.run_id}-{what}"

    def keys_of(self, lock):
        """The keys the library made for `lock` (libraries may add a prefix, e.g. redis-semaphore's mutex:),
        less a fencing library's token counter, which outlives every hold (Redisson's redisson_lock_token:{N})."""
        return sorted(k for k in self.redis.scan_iter(match=f"*{lock}*", count=1000) if not self.fence_counter(k))

    def fence_counter(self, key):
        """A fencing library's token counter: a string holding an integer, without a TTL."""
        if not self.supports.get("fencing") or self.redis.type(key) != b"string":
            return False
        value = self.redis.get(key)
        return value is not None and value.isdigit() and self.redis.pttl(key) == -1

    def value_of(self, key):
        """What `key` holds, whatever its type (a lock may be a string, a hash, a list...)."""
        kind = self.redis.type(key)
        if kind == b"string":
            return self.redis.get(key)
        if kind == b"hash":
            return sorted(self.redis.hgetall(key).items())
        if kind == b"list":
            return self.redis.lrange(key, 0, -1)
        if kind == b"set":
            return sorted(self.redis.smembers(key))
        if kind == b"zset":
            return self.redis.zrange(key, 0, -1, withscores=True)
        return kind  # none (gone meanwhile) or a type no lock library uses

    def snapshot(self, lock):
        return {k: self.value_of(k) for k in self.keys_of(lock)}

    def owners(self, keys):
        """Where a lock names its owner: a string key's value, a hash key's fields (Redisson's <uuid>:<thread>)."""
        marks = set()
        for k in keys:
            kind = self.redis.type(k)
            if kind == b"string":
                marks.add(self.redis.get(k))
            elif kind == b"hash":
                marks.update(self.redis.hkeys(k))
        return marks

    def acquire(self, adapter, lock, lease_ms, wait_ms=0, auto_renew=False, timeout=None):
        return adapter.call("acquire", timeout=timeout or REPLY_TIMEOUT + wait_ms / 1000, lock=lock,
                            lease_ms=lease_ms, wait_ms=wait_ms, auto_renew=auto_renew)

    def held(self, adapter, lock, lease_ms=10000, **kwargs):
        reply, _ = self.acquire(adapter, lock, lease_ms, **kwargs)
        expect(reply["ok"], f"acquire of a free lock failed: {reply}")
        token = reply.get("token")
        expect(token is None or isinstance(token, str), f"token is not a string: {reply}")
        keys = self.keys_of(lock)
        expect(keys, f"acquire answered ok but Redis has no key containing {lock!r}")
        if token is not None:
            marks = self.owners(keys)
            expect(not marks or token.encode() in marks,
                   f"the reply's token {token!r} is neither the value of a string key nor a field of a hash key "
                   f"of the lock ({sorted(marks)})")
        self.held_keys[lock] = keys
        self.held_tokens[lock] = token
        return reply

    def is_signal(self, key, token):
        """A key a release writes for the waiters and lets expire on its own (python-redis-lock's
        lock-signal:<name> list, PEXPIRE 1 s): it has a short TTL and does not name the owner. A release may
        write it again each time, so it can be among the keys seen while the lock was held."""
        ttl = self.redis.pttl(key)
        if not 0 < ttl <= MAX_SIGNAL_TTL_MS:
            return False
        if token is None:  # without a token to tell them apart, only a key no lock is made of (a list, a set)
            return self.redis.type(key) in (b"list", b"set", b"zset", b"stream")
        return token.encode() not in self.owners([key])

    def release_ok(self, adapter, lock):
        reply, _ = adapter.call("release", lock=lock)
        expect(reply["ok"], f"release of a held lock failed: {reply}")
        held = set(self.held_keys.pop(lock, []))
        token = self.held_tokens.pop(lock, None)
        remaining = [k for k in self.keys_of(lock) if not self.is_signal(k, token)]
        expect(not held.intersection(remaining), f"release answered ok but the lock's keys remain: {remaining}")
        # A key the release itself wrote may go a moment after its reply: Redisson's unlock latch
        # (redisson_unlock_latch:{N}:<id>) is deleted by a command sent once the unlock script answered.
        deadline = time.monotonic() + 1
        while remaining and time.monotonic() < deadline:
            time.sleep(0.01)
            remaining = [k for k in self.keys_of(lock) if not self.is_signal(k, token)]
        expect(not remaining, f"release answered ok, and keys it wrote were still there 1 s later: {remaining}")

    def wait_gone(self, lock, lease_ms):
        """Waits for the lease to run out: the lock's keys disappear (bounded)."""
        deadline = time.monotonic() + lease_ms / 1000 + 2
        while self.keys_of(lock):
            expect(time.monotonic() < deadline, f"the lock's keys outlived its {lease_ms} ms lease by 2 s")
            time.sleep(0.02)

    def needs(self, *flags):
        missing = [f for f in flags if not self.supports.get(f)]
        if missing:
            raise Skipped("supports " + ", ".join(f"{f}: false" for f in missing))

    # --- the checks ----------------------------------------------------------------------------------------

    def check_hello(self):
        a = Adapter(self.command, "A", self.problems)
        self.adapters.append(a)
        reply, _ = a.call("hello", timeout=HELLO_TIMEOUT, protocol=1, worker="A",
                          servers=[{"host": "127.0.0.1", "port": self.server.port}], options=self.options)
        expect(reply["ok"], f"hello failed: {reply}")
        for field in ("library", "version"):
            expect(isinstance(reply.get(field), str) and reply[field], f"hello without a {field}: {reply}")
        supports = reply.get("supports")
        expect(isinstance(supports, dict), f"hello without a supports object: {reply}")
        for key in SUPPORTS_KEYS:
            expect(isinstance(supports.get(key), bool), f"supports.{key} is not true or false: {supports}")
        expect(not supports["renewal_events"] or supports["auto_renewal"], "renewal_events without auto_renewal")
        self.supports, self.a, self.b = supports, a, self.start("B")
        flags = " ".join(k for k in SUPPORTS_KEYS if supports[k]) or "nothing"
        return f"{reply['library']} {reply['version']}; supports {flags}"

    def check_counter(self):
        key = self.lock_name("counter")
        reply, _ = self.a.call("read", key=key)
        expect(reply["ok"] and "value" in reply and reply["value"] is None, f"read of a missing key: {reply}")
        for value in (41, 0):
            reply, _ = self.a.call("write", key=key, value=value)
            expect(reply["ok"], f"write failed: {reply}")
            expect(self.redis.get(key) == str(value).encode(), f"after write {value}, GET says {self.redis.get(key)}")
            reply, _ = self.a.call("read", key=key)
            expect(reply["ok"] and reply.get("value") == value, f"read after write {value}: {reply}")
            expect(type(reply["value"]) is int, f"read's value is not an integer: {reply}")

    def check_acquire_release(self):
        lock = self.lock_name("basic")
        self.held(self.a, lock)
        self.release_ok(self.a, lock)

    def check_lease(self):
        lock = self.lock_name("lease")
        if not self.supports["lease"]:
            self.needs("no_lease")  # lease false, no_lease true: lease_ms is ignored, locks never expire
        token = self.held(self.a, lock, lease_ms=3000).get("token")
        ttls = [self.redis.pttl(k) for k in self.keys_of(lock) if not self.is_signal(k, token)]
        if self.supports["lease"]:
            expect(all(2500 < t <= 3000 for t in ttls), f"lease_ms 3000 but the keys' PTTL are {ttls}")
            detail = f"PTTL {ttls} for lease_ms 3000"
        else:
            expect(all(t == -1 for t in ttls), f"supports.lease is false, yet the keys' PTTL are {ttls}")
            detail = "lease_ms ignored as announced: no TTL"
        self.release_ok(self.a, lock)
        return detail

    def check_no_lease(self):
        lock = self.lock_name("nolease")
        if not self.supports["no_lease"]:
            reply, _ = self.acquire(self.a, lock, 0)
            expect(not reply["ok"], f"supports.no_lease is false, yet lease_ms 0 was accepted: {reply}")
            return f"lease_ms 0 refused ({reply['reason']}) as announced"
        self.held(self.a, lock, lease_ms=0)
        ttls = [self.redis.pttl(k) for k in self.keys_of(lock)]
        expect(all(t == -1 for t in ttls), f"lease_ms 0 but the keys' PTTL are {ttls}")
        self.release_ok(self.a, lock)

    def check_contention(self):
        lock = self.lock_name("contended")
        self.held(self.a, lock)
        reply, took = self.acquire(self.b, lock, 10000, wait_ms=0)
        expect(not reply["ok"] and reply["reason"] == "timeout", f"B acquired A's lock (wait_ms 0): {reply}")
        expect(took < 1, f"wait_ms 0 took {took:.2f} s")
        reply, took = self.acquire(self.b, lock, 10000, wait_ms=600)
        expect(not reply["ok"] and reply["reason"] == "timeout", f"B acquired A's lock (wait_ms 600): {reply}")
        expect(0.45 <= took <= 1.1, f"wait_ms 600 answered timeout after {took * 1000:.0f} ms")
        self.release_ok(self.a, lock)
        return f"timeout after {took * 1000:.0f} ms for wait_ms 600"

    def check_waiting_acquire(self):
        lock = self.lock_name("handover")
        first = self.held(self.a, lock)
        waiting = self.b.send("acquire", lock=lock, lease_ms=10000, wait_ms=3000, auto_renew=False)
        # A releases while B waits (or before B's first try: either way B must get the lock). B may take it at
        # once, so the lock's key is not expected to be gone after this release.
        reply, _ = self.a.call("release", lock=lock)
        expect(reply["ok"], f"release of a held lock failed: {reply}")
        reply = self.b.reply(waiting, timeout=3 + REPLY_TIMEOUT)
        expect(reply["ok"], f"B did not get the lock A released during its wait: {reply}")
        keys = self.keys_of(lock)
        expect(keys, "B's acquire answered ok but the lock has no key")
        self.held_keys[lock] = keys
        self.held_tokens[lock] = reply.get("token")
        marks = self.owners(keys)
        if first.get("token") and reply.get("token"):
            expect(first["token"] != reply["token"] and reply["token"].encode() in marks,
                   f"the lock's keys name {sorted(marks)} as owner, not B's token {reply['token']!r}")
        if self.supports["fencing"]:
            expect(isinstance(first.get("fence"), int) and isinstance(reply.get("fence"), int)
                   and reply["fence"] > first["fence"], f"fences do not grow: {first} then {reply}")
        self.release_ok(self.b, lock)

    def check_not_owner(self):
        lock = self.lock_name("notowner")
        self.held(self.a, lock)
        before = self.snapshot(lock)
        reply, _ = self.b.call("release", lock=lock)
        expect(not reply["ok"] and reply["reason"] == "not-held", f"B released A's lock: {reply}")
        expect(self.snapshot(lock) == before, "B's release changed A's lock")
        self.release_ok(self.a, lock)
        reply, _ = self.a.call("release", lock=lock)
        expect(not reply["ok"] and reply["reason"] == "not-held", f"a second release answered {reply}")

    def check_release_after_expiry(self):
        self.needs("lease")
        lock = self.lock_name("expired")
        self.held(self.a, lock, lease_ms=300)
        self.wait_gone(lock, 300)
        self.held(self.b, lock)
        b_keys = self.snapshot(lock)
        reply, _ = self.a.call("release", lock=lock)
        if self.supports["release_not_held"]:
            expect(not reply["ok"] and reply["reason"] == "not-held", f"A's release after expiry answered {reply}")
        else:
            expect(reply["ok"] or reply["reason"] == "not-held", f"A's release after expiry answered {reply}")
        expect(self.snapshot(lock) == b_keys, "A's release after expiry removed or changed B's lock")
        self.release_ok(self.b, lock)
        if not self.supports["release_not_held"]:
            return f"release after expiry answered ok={reply['ok']} (supports.release_not_held is false)"

    def check_extend(self):
        lock = self.lock_name("extend")
        if not self.supports["extend"]:
            self.held(self.a, lock)
            reply, _ = self.a.call("extend", lock=lock, lease_ms=5000)
            expect(not reply["ok"] and reply["reason"] == "unsupported", f"extend (unsupported) answered {reply}")
            self.release_ok(self.a, lock)
            return "unsupported, as announced"
        token = self.held(self.a, lock, lease_ms=1000).get("token")
        reply, _ = self.a.call("extend", lock=lock, lease_ms=5000)
        expect(reply["ok"], f"extend of a held lock failed: {reply}")
        # A library that rounds the lease (to whole seconds, say) reports the one it set in lease_ms, never less.
        lease = reply.get("lease_ms", 5000)
        expect(isinstance(lease, int) and lease >= 5000, f"extend to 5000 ms answered lease_ms {lease}")
        ttls = [self.redis.pttl(k) for k in self.keys_of(lock) if not self.is_signal(k, token)]
        expect(ttls and all(4500 < t <= lease for t in ttls), f"extend to 5000 ms but the keys' PTTL are {ttls}")
        self.release_ok(self.a, lock)
        self.held(self.a, lock, lease_ms=300)
        self.wait_gone(lock, 300)
        reply, _ = self.a.call("extend", lock=lock, lease_ms=5000)
        expect(not reply["ok"] and reply["reason"] == "not-held", f"extend after expiry answered {reply}")
        expect(not self.keys_of(lock), "extend after expiry brought the lock back")
        reply, _ = self.b.call("extend", lock=lock, lease_ms=5000)
        expect(not reply["ok"] and reply["reason"] == "not-held", f"extend of a lock never held answered {reply}")

    def check_auto_renewal(self):
        self.needs("auto_renewal")
        lock, lease = self.lock_name("renewed"), 500
        seen = len(self.a.events)
        first = self.held(self.a, lock, lease_ms=lease, auto_renew=True)
        token = first.get("token")
        # A watchdog whose lease is set elsewhere (Redisson's lockWatchdogTimeout) says which in lease_ms.
        lease = first.get("lease_ms", lease)
        if lease > MAX_WATCHED_LEASE_MS:
            self.release_ok(self.a, lock)
            raise Skipped(f"the watchdog's lease is {lease} ms (the acquire reply's lease_ms), too long to watch "
                          "two of them; give the adapter a shorter one in --options")
        time.sleep(2.6 * lease / 1000)  # more than two leases: only renewals keep the lock
        keys = self.keys_of(lock)
        expect(keys, f"auto_renew did not keep the lock for 2.6 leases of {lease} ms")
        if token is not None:
            expect(token.encode() in self.owners(keys), "the lock's keys no longer name A's token as owner")
        reply, _ = self.acquire(self.b, lock, lease)
        expect(not reply["ok"] and reply["reason"] == "timeout", f"B acquired A's auto-renewed lock: {reply}")
        events = [e for _, e in self.a.events[seen:] if e.get("lock") == lock]
        expect(not any(e["event"] == "lost" for e in events), f"lost events for a lock kept alive: {events}")
        renewed = [e for e in events if e["event"] == "renewed"]
        self.release_ok(self.a, lock)
        if self.supports["renewal_events"]:
            expect(len(renewed) >= 2, f"renewal_events, yet {len(renewed)} renewed events in 2.6 leases")
            expect(all(e.get("lease_ms") == lease for e in renewed), f"renewed events without lease_ms {lease}")
            return f"{len(renewed)} renewed events in 2.6 leases"
        expect(not renewed, f"renewed events from an adapter without renewal_events: {renewed}")

    def check_lost(self):
        """With auto_renew, a lock deleted behind the library's back: the release must say not-held."""
        self.needs("auto_renewal")
        lock, lease = self.lock_name("lost"), 500
        seen = len(self.a.events)
        lease = min(self.held(self.a, lock, lease_ms=lease, auto_renew=True).get("lease_ms", lease),
                    MAX_WATCHED_LEASE_MS)
        deleted = time.monotonic()
        self.redis.delete(*self.held_keys[lock])
        deadline = deleted + 2 * lease / 1000 + 1
        lost = []
        while not lost and time.monotonic() < deadline:  # a lost event is optional: wait a bounded while
            lost = [(t, e) for t, e in self.a.events[seen:] if e.get("lock") == lock and e["event"] == "lost"]
            time.sleep(0.02)
        reply, _ = self.a.call("release", lock=lock)
        if self.supports["release_not_held"] or lost:
            expect(not reply["ok"] and reply["reason"] == "not-held", f"release of a lost lock answered {reply}")
        if lost:
            return f"lost event {(lost[0][0] - deleted) * 1000:.0f} ms after the key was deleted"
        return "no lost event (optional); release answered " + ("ok" if reply["ok"] else reply["reason"])

    def check_reentrant(self):
        lock = self.lock_name("again")
        self.held(self.a, lock)
        reply, _ = self.acquire(self.a, lock, 10000)
        if self.supports["reentrant"]:
            expect(reply["ok"], f"supports.reentrant, yet the holder's second acquire failed: {reply}")
            self.a.call("release", lock=lock)
            detail = "second acquire by the holder: ok"
        else:
            expect(not reply["ok"] and reply["reason"] == "timeout",
                   f"supports.reentrant is false, yet the holder's second acquire answered {reply}")
            detail = "second acquire by the holder: timeout"
        self.release_ok(self.a, lock)  # the refused second acquire left the first one held
        return detail

    def check_unknown_op(self):
        reply, _ = self.a.call("conformance-no-such-op", lock=self.lock_name("x"))
        expect(not reply["ok"] and reply["reason"] == "unsupported", f"an unknown op answered {reply}")
        reply, _ = self.a.call("read", key=self.lock_name("x"))
        expect(reply["ok"], f"after an unknown op, read answered {reply}")

    def check_order(self):
        """Requests written together (LockScope does so after a reply that never came) answer in order."""
        key = self.lock_name("order")
        ops = [("read", {"key": key}), ("write", {"key": key, "value": 5}), ("read", {"key": key}),
               ("conformance-no-such-op", {}), ("write", {"key": key, "value": 6}), ("read", {"key": key})]
        first = self.a.next_id + 1
        self.a.next_id += len(ops)
        self.a.write(*({"id": first + i, "op": op, **fields} for i, (op, fields) in enumerate(ops)))
        replies = [self.a.reply((first + i, op)) for i, (op, _) in enumerate(ops)]
        values = [r.get("value") for r in replies]
        expect(values[0] is None and values[2] == 5 and values[5] == 6, f"reads in the batch saw {values}")
        expect([r["ok"] for r in replies] == [True, True, True, False, True, True], f"batch answered {replies}")

    def check_quit(self):
        q = self.start("Q")
        reply, _ = q.call("quit")
        expect(reply["ok"], f"quit answered {reply}")
        expect(q.close_and_wait(), f"the adapter did not exit within {EXIT_TIMEOUT:g} s of quit")

    def check_eof_holding(self):
        e = self.start("E")
        lock = self.lock_name("eof")
        self.held(e, lock, lease_ms=5000, auto_renew=self.supports["auto_renewal"])
        expect(e.close_and_wait(), f"holding a lock, the adapter did not exit within {EXIT_TIMEOUT:g} s of EOF")
        keys = self.keys_of(lock)  # none left when a short lease ran out meanwhile
        if keys:
            self.redis.delete(*keys)

    def check_eof_batch(self):
        """A conversation written at once, then EOF (as with printf | adapter): every reply, then exit."""
        p = Adapter(self.command, "P", self.problems)
        self.adapters.append(p)
        lock = self.lock_name("batch")
        requests = [{"id": 1, "op": "hello", "protocol": 1, "worker": "P", "options": self.options,
                     "servers": [{"host": "127.0.0.1", "port": self.server.port}]},
                    {"id": 2, "op": "acquire", "lock": lock, "lease_ms": 5000, "wait_ms": 0, "auto_renew": False},
                    {"id": 3, "op": "release", "lock": lock}]
        p.write(*requests)
        p.process.stdin.close()
        replies = [p.reply((r["id"], r["op"]), timeout=HELLO_TIMEOUT) for r in requests]
        expect(all(r["ok"] for r in replies), f"hello, acquire, release then EOF answered {replies}")
        try:
            p.process.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"the adapter did not exit within {EXIT_TIMEOUT:g} s of its last reply")

    def check_stdout(self):
        expect(not self.problems, "; ".join(self.problems[:5]))

    # --- running -------------------------------------------------------------------------------------------

    CHECKS = [
        ("hello announces library, version, supports", check_hello),
        ("read and write the counter", check_counter),
        ("acquire and release", check_acquire_release),
        ("lease honoured (PTTL)", check_lease),
        ("lease_ms 0", check_no_lease),
        ("a held lock is refused to another process", check_contention),
        ("a waiting acquire gets the lock once released", check_waiting_acquire),
        ("release by a non-owner: not-held", check_not_owner),
        ("release after expiry", check_release_after_expiry),
        ("extend", check_extend),
        ("auto_renew keeps the lock past two leases", check_auto_renewal),
        ("an auto-renewed lock deleted behind its back", check_lost),
        ("acquiring a lock the worker holds", check_reentrant),
        ("unknown op: unsupported", check_unknown_op),
        ("requests written together: replies in order, ids matching", check_order),
        ("quit: reply, then exit", check_quit),
        ("stdin EOF while holding: exit within 2 s", check_eof_holding),
        ("requests then EOF: every reply, then exit", check_eof_batch),
        ("nothing but JSON objects on stdout", check_stdout),
    ]

    def fresh_start(self):
        """After a failed check: new processes A and B on an empty server, so that a reply still pending or a
        lock still held does not fail the next checks too."""
        self.a.kill()
        self.b.kill()
        self.redis.flushall()
        self.held_keys.clear()
        try:
            self.a, self.b = self.start("A"), self.start("B")
        except (CheckFailed, OSError) as why:
            print(f"FAIL starting fresh adapter processes: {why}", flush=True)
            raise

    def run(self):
        failed = 0
        for title, check in self.CHECKS:
            started = time.monotonic()
            try:
                detail = check(self)
                status = "PASS"
            except Skipped as why:
                status, detail = "SKIP", str(why)
            except (CheckFailed, OSError) as why:  # OSError: the command could not be started
                status, detail, failed = "FAIL", str(why), failed + 1
            except redis.RedisError as why:  # the check's own look at Redis failed: say so, and go on
                status, detail, failed = "FAIL", f"the check's own command failed: {type(why).__name__}: {why}", failed + 1
            took = (time.monotonic() - started) * 1000
            print(f"{status} {title} ({took:.0f} ms){': ' + detail if detail else ''}", flush=True)
            if check is Conformance.check_hello and status == "FAIL":
                break  # nothing else can be checked without a working hello
            if status == "FAIL":
                self.fresh_start()
        if failed:
            for adapter in self.adapters:
                tail = adapter.stderr_tail()
                if tail:
                    print(f"-- stderr of adapter process {adapter.name} (last lines):\n   " + "\n   ".join(tail))
        return failed

    def close(self):
        for adapter in self.adapters:
            adapter.kill()
        self.server.stop()


def doc_example(markdown):
    """The complete adapter of docs/client-protocol.md, written to a temporary file."""
    text = open(markdown, encoding="utf-8").read()
    match = re.search(r"^## A complete adapter.*?^```python\n(.*?)^```", text, re.S | re.M)
    if not match:
        raise SystemExit(f"conformance: no ```python block under '## A complete adapter' in {markdown}")
    handle, path = tempfile.mkstemp(prefix="lockscope-doc-adapter-", suffix=".py")
    with os.fdopen(handle, "w") as f:
        f.write(match.group(1))
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", help="a shipped adapter's client.json (its command, ${dir} expanded)")
    parser.add_argument("--dir", help="what ${dir} stands for: the adapter's folder where LockScope unpacked and "
                                      "built it (default: the manifest's own folder)")
    parser.add_argument("--doc-example", metavar="MARKDOWN", help="check the example adapter of the protocol doc")
    parser.add_argument("--options", default="{}", help="hello's options, as JSON (default {})")
    parser.add_argument("command", nargs="*", help="the adapter's command line (after --)")
    args = parser.parse_args()
    options = json.loads(args.options)
    cleanup = None
    if args.manifest:
        manifest = json.load(open(args.manifest, encoding="utf-8"))
        folder = os.path.abspath(args.dir) if args.dir else os.path.dirname(os.path.abspath(args.manifest))
        command = [part.replace("${dir}", folder) for part in manifest["command"]]
    elif args.doc_example:
        cleanup = doc_example(args.doc_example)
        command = ["/usr/bin/python3", cleanup]
    else:
        command = args.command
    if not command:
        parser.error("give an adapter: --manifest FILE, --doc-example FILE or -- COMMAND")
    print(f"conformance: {' '.join(command)} with options {json.dumps(options)}", flush=True)
    started = time.monotonic()
    try:
        check = Conformance(command, options)
    except (RuntimeError, OSError) as e:
        print(f"conformance: cannot run: {e}", file=sys.stderr)
        return 2
    try:
        failed = check.run()
    finally:
        check.close()
        if cleanup:
            os.unlink(cleanup)
    verdict = f"{failed} check(s) FAILED" if failed else "all checks passed"
    print(f"conformance: {verdict} in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
