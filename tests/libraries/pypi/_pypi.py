"""Shared start of the PyPI fixture drivers (not a driver itself): they run in tests/libraries/pypi/.venv and
use the Debian drivers' contract helpers (../python/_fixture.py).

Import it first, right after ``sys.dont_write_bytecode = True``; it takes this directory off sys.path so that
pottery.py does not shadow the pottery package.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import _fixture as fx  # noqa: E402

del sys.path[0]


def start(description):
    """Parses --port/--prefix (with _fixture's setup cap and signals) and connects; returns (args, client)."""
    args = fx.start(description)
    import redis

    r = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
    r.ping()
    return args, r
