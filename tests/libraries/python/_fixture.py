"""Shared helpers for the LockScope Python library fixtures (Debian 12 packages and PyPI ones).

Contract of every driver: ``<driver> --port N [--prefix P]``; prints one JSON object per
line on stdout ({"made": ...} / {"not_lock": ...}), then {"ready": true}; holds its locks
until stdin reaches EOF or SIGTERM/SIGINT arrives, then exits 0 within 1 s. On failure:
one line on stderr, exit 1. The whole setup is capped at 20 s.

The drivers here run with Debian's /usr/bin/python3 (the packages live in
/usr/lib/python3/dist-packages), never with a pyenv/venv interpreter. The PyPI drivers
(tests/libraries/pypi) use this module too, from their own venv.
"""

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

SETUP_CAP_S = 20
_stop = threading.Event()


def fail(msg):
    sys.stderr.write("fixture error: " + " ".join(str(msg).split()) + "\n")
    sys.stderr.flush()
    os._exit(1)


def _on_alarm(signum, frame):
    fail("setup took longer than %d s" % SETUP_CAP_S)


def _on_term(signum, frame):
    _stop.set()


def start(description, extra_args=None):
    """Parses --port/--prefix, arms the setup cap and the signal handlers."""
    class _Parser(argparse.ArgumentParser):
        def error(self, message):
            fail("bad arguments (%s); usage: --port N [--prefix P]" % message)

    p = _Parser(description=description)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--prefix", default="fx:")
    for name, kw in (extra_args or {}).items():
        p.add_argument(name, **kw)
    args = p.parse_args()
    if not 1 <= args.port <= 65535:
        fail("--port must be 1..65535")
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(SETUP_CAP_S)
    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGINT, _on_term)
    sys.excepthook = lambda t, v, tb: fail("%s: %s" % (t.__name__, v))
    return args


def deb_version(package):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, timeout=5).stdout.strip()
        return out or "unknown"
    except Exception:
        return "unknown"


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def made(**fields):
    fields.setdefault("renewal", None)
    fields.setdefault("companions", [])
    fields.setdefault("db", 0)
    emit({"made": fields})


def not_lock(key, why, **extra):
    d = {"key": key, "why": why}
    d.update(extra)
    emit({"not_lock": d})


def stopping():
    return _stop.is_set()


def ready_and_hold(tick=None, tick_every_s=0.2):
    """Prints {"ready": true}; returns when stdin hits EOF or SIGTERM/SIGINT arrives."""
    signal.alarm(0)
    emit({"ready": True})
    fd = sys.stdin.fileno()
    while not _stop.is_set():
        try:
            r, _, _ = select.select([fd], [], [], tick_every_s)
        except InterruptedError:
            continue
        if r:
            try:
                chunk = os.read(fd, 8192)
            except OSError:
                chunk = b""
            if not chunk:
                break
        if tick is not None:
            tick()
    _stop.set()


def gives_up(acquire, within_s=5):
    """A blocked waiter that must give up: runs acquire() (a blocking acquire with a bound of its own) in a
    thread, and fails the driver unless it returns False within within_s seconds."""
    result = {}
    t = threading.Thread(target=lambda: result.update(acquired=acquire()), daemon=True)
    t.start()
    t.join(within_s)
    if result.get("acquired") is not False:
        fail("the blocked waiter should have given up")


def decode(v):
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v.hex()
    return v
