// bsm/redislock on go-redis v9: Obtain runs luaObtain (SET <key> <token+metadata> NX PX <ttl>, or re-SET
// when the stored value starts with the same token); token = base64.RawURLEncoding of 16 crypto/rand bytes
// (22 characters of A-Z a-z 0-9 - _, no padding) unless Options.Token gives one; Options.Metadata is
// appended to it (redislock.go Obtain, randomToken). Refresh runs luaRefresh (GET = value → PEXPIRE).
// Nothing else is written; a waiter retries client-side (Options.RetryStrategy).
package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/bsm/redislock"
)

const bsmMeaning = "randomToken(): base64.RawURLEncoding of 16 crypto/rand bytes (22 characters of " +
	"A-Za-z0-9-_, no padding), a new one at each Obtain (redislock.go)"

func runRedislock(cfg config) {
	version := moduleVersion("github.com/bsm/redislock")
	c := client(cfg, 0)
	locker := redislock.New(c)
	base := func(l *redislock.Lock, leaseMs int, api string) map[string]any {
		return map[string]any{"library": "bsm/redislock", "package": "github.com/bsm/redislock",
			"version": version, "go_redis": moduleVersion("github.com/redis/go-redis/v9"), "key": l.Key(),
			"type": "string", "kind": "mutex", "owner": l.Token() + l.Metadata(), "owner_meaning": bsmMeaning,
			"lease_ms": leaseMs, "api": api}
	}
	names := []string{cfg.prefix + "my-key", cfg.prefix + "lock:billing-export", cfg.prefix + "jobs:reindex:lock",
		cfg.prefix + "mutex:cache-warm"}
	c.Del(bg, names...) // leftovers of a killed earlier run
	obtain := func(key string, ttl time.Duration, opt *redislock.Options) *redislock.Lock {
		l, err := locker.Obtain(bg, key, ttl, opt)
		if err != nil {
			fail("redislock could not obtain %s: %v", key, err)
		}
		return l
	}

	// 1. The README's call: a random token, a TTL, no options, never refreshed.
	l := obtain(names[0], 10*time.Minute, nil)
	made(base(l, 600000, fmt.Sprintf("locker.Obtain(ctx, %q, 10*time.Minute, nil)", names[0])))

	// 2. Kept alive by the holder: redislock never refreshes by itself; the application calls Refresh.
	const lease, every = 3 * time.Second, time.Second
	kept := obtain(names[1], lease, nil)
	go func() {
		for range time.Tick(every) {
			if err := kept.Refresh(bg, lease, nil); err != nil {
				fail("redislock Refresh of %s failed: %v", names[1], err)
			}
		}
	}()
	m := base(kept, int(lease.Milliseconds()), fmt.Sprintf("locker.Obtain(ctx, %q, 3*time.Second, nil); a "+
		"goroutine calls lock.Refresh(ctx, 3*time.Second, nil) every second", names[1]))
	m["renewal"] = map[string]any{"every_ms": every.Milliseconds(),
		"rule": "redislock has no watchdog; this holder calls Lock.Refresh every 1 s (luaRefresh: PEXPIRE to " +
			"the 3 s it asks for when the value is still its own)"}
	made(m)

	// A waiter on it: it retries Obtain client-side and stores nothing (retries exhausted → ErrNotObtained).
	_, err := locker.Obtain(bg, names[1], lease, &redislock.Options{
		RetryStrategy: redislock.LimitRetry(redislock.LinearBackoff(50*time.Millisecond), 3)})
	if !errors.Is(err, redislock.ErrNotObtained) {
		fail("a second Obtain of %s should not have obtained it, got %v", names[1], err)
	}

	// 3. Metadata: stored after the random token, in the same value.
	meta := fmt.Sprintf(";host=api-3;pid=%d", os.Getpid())
	l = obtain(names[2], 10*time.Minute, &redislock.Options{Metadata: meta})
	m = base(l, 600000, fmt.Sprintf("locker.Obtain(ctx, %q, 10*time.Minute, &redislock.Options{Metadata: %q})",
		names[2], meta))
	m["owner_meaning"] = "the random token (22 characters, as without metadata) followed by Options.Metadata; " +
		"Release and Refresh compare the whole value"
	made(m)

	// 4. A token of the application's choosing (Options.Token).
	l = obtain(names[3], 10*time.Minute, &redislock.Options{Token: "cache-warmer-1"})
	m = base(l, 600000, fmt.Sprintf("locker.Obtain(ctx, %q, 10*time.Minute, &redislock.Options{Token: "+
		"\"cache-warmer-1\"})", names[3]))
	m["owner_meaning"] = "the application's Options.Token"
	made(m)
}
