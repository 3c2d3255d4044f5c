#!/usr/bin/python3
"""Loads recorded key dumps (tests/libraries/recorded/*.json) into a Redis server and then behaves like a
fixture driver: prints their {"made": ...} and {"not_lock": ...} lines, then {"ready": true}, and holds
until stdin closes. Times stored in the keys are shifted to now (see formats-source.md, "JSON conventions").

Usage: load.py --port N [--prefix P] FILE.json...   (the prefix is accepted and ignored: recorded keys
keep the names the libraries gave them)."""
import argparse, datetime, json, signal, sys, time

import redis


def shifted(now_ms, offset_ms, unit):
    t = now_ms + offset_ms
    if unit == "s":
        return t / 1000.0
    return t


def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000.0, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + \
        "%03dZ" % (ms % 1000)


def load(r, k, now_ms, replaced):
    """Writes one key; `replaced` collects text substitutions made in string values (times shifted to now),
    so the manifest's owners can be shifted the same way."""
    key, kind = k["key"], k["type"]
    r.delete(key)
    rel = k.get("relative_to_now")
    if kind == "string":
        value = k["value"]
        vt = k.get("value_time") if rel else None
        if vt:
            t = now_ms + vt["offset_ms"]
            new = iso(t) if vt["unit"] == "iso8601_utc_ms" else (str(int(t)) if vt["unit"] == "ms" else
                                                                   repr(t / 1000.0) if "." in vt["text"] else str(int(t / 1000)))
            value = value.replace(vt["text"], new)
            replaced[vt["text"]] = new
        r.set(key, bytes.fromhex(value) if k.get("value_encoding") == "hex" else value)
    elif kind == "hash":
        fields = dict(k["fields"])
        for f, spec in (k.get("field_times") or {}).items() if rel else []:
            fields[f] = repr(shifted(now_ms, spec["offset_ms"], spec["unit"]))
        r.hset(key, mapping=fields)
    elif kind == "zset":
        offsets = k.get("score_offsets_ms") if rel else None
        mapping = {}
        for i, (member, score) in enumerate(k["members"]):
            if k.get("member_encoding") == "hex":
                member = bytes.fromhex(member)
            if offsets and offsets[i] is not None:
                score = shifted(now_ms, offsets[i], k.get("score_unit", "ms"))
            mapping[member] = score
        r.zadd(key, mapping)
    elif kind == "list":
        r.rpush(key, *k["items"])
    elif kind == "set":
        r.sadd(key, *k["set"])
    elif kind == "stream":
        for entry in k["entries"]:
            r.xadd(key, entry)
    else:
        raise ValueError("unknown type %s for %s" % (kind, key))
    if k.get("pttl_ms") is not None:
        r.pexpire(key, int(k["pttl_ms"]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--prefix", default="")
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        r = redis.Redis(host="127.0.0.1", port=a.port, socket_timeout=10)
        now_ms = int(time.time() * 1000)
        for f in a.files:
            d = json.load(open(f))
            replaced = {}
            for k in d["keys"]:
                load(r, k, now_ms, replaced)
            for m in d["made"]:
                text = json.dumps(dict(m, recorded=True))
                for old, new in replaced.items():  # owners that carry a time (ShedLock's, the reaper's)
                    text = text.replace(old, new)
                print(json.dumps({"made": json.loads(text)}), flush=True)
            for n in d.get("not_lock", []):
                print(json.dumps({"not_lock": n}), flush=True)
    except Exception as e:  # one line, exit 1: the driver contract
        print("load.py: %s" % e, file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
