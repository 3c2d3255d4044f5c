// go-redsync/redsync v4 on go-redis v9 (its redis/goredis/v9 pool): Mutex.Lock writes SET <name> <value>
// NX PX <expiry>; value = genValue(), base64.StdEncoding of 16 crypto/rand bytes (mutex.go genValue);
// Extend runs touchScript (GET = value → PEXPIRE <expiry>, scripts.go); nothing else is written, and a
// waiter only retries SET NX client-side (tries, delayFunc in redsync.go NewMutex).
package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
)

const redsyncMeaning = "genValue(): base64.StdEncoding of 16 crypto/rand bytes (24 characters ending ==), " +
	"a new one at each Lock (mutex.go)"

func runRedsync(cfg config) {
	version := moduleVersion("github.com/go-redsync/redsync/v4")
	base := func(key string, m *redsync.Mutex, leaseMs int, api string) map[string]any {
		return map[string]any{"library": "go-redsync", "package": "github.com/go-redsync/redsync/v4",
			"version": version, "go_redis": moduleVersion("github.com/redis/go-redis/v9"), "key": key,
			"type": "string", "kind": "mutex", "owner": m.Value(), "owner_meaning": redsyncMeaning,
			"lease_ms": leaseMs, "api": api}
	}
	c0 := client(cfg, 0)
	rs := redsync.New(goredis.NewPool(c0))
	lock := func(m *redsync.Mutex) {
		if err := m.Lock(); err != nil {
			fail("redsync could not lock %s: %v", m.Name(), err)
		}
	}
	names := []string{cfg.prefix + "my-global-mutex", cfg.prefix + "reports:nightly", cfg.prefix + "orders:sync",
		cfg.prefix + "lock:payments-settle", cfg.prefix + "inventory:rebuild"}
	for db := 0; db < 3; db++ { // leftovers of a killed earlier run
		client(cfg, db).Del(bg, names...)
	}

	// 1. Default options (expiry 8 s), kept alive by the holder's own renewer: redsync never extends by
	// itself, so an application that holds longer than the expiry calls Extend on a rhythm.
	const renewEvery = 2 * time.Second
	def := rs.NewMutex(names[0])
	lock(def)
	go func() {
		for range time.Tick(renewEvery) {
			if ok, err := def.Extend(); !ok {
				fail("redsync Extend of %s failed: %v", def.Name(), err)
			}
		}
	}()
	m := base(names[0], def, 8000, fmt.Sprintf("rs.NewMutex(%q).Lock(); a goroutine calls Extend() every %s",
		names[0], renewEvery))
	m["renewal"] = map[string]any{"every_ms": renewEvery.Milliseconds(),
		"rule": "redsync has no watchdog; this holder calls Mutex.Extend() every 2 s (touchScript: PEXPIRE " +
			"to the full 8 s expiry when the value is still its own)"}
	made(m)

	// 2. A custom expiry, never renewed.
	long := rs.NewMutex(names[1], redsync.WithExpiry(10*time.Minute))
	lock(long)
	made(base(names[1], long, 600000, fmt.Sprintf("rs.NewMutex(%q, redsync.WithExpiry(10*time.Minute)).Lock()",
		names[1])))

	// 3. Extended once by hand: Extend resets the TTL to the full expiry.
	ext := rs.NewMutex(names[2], redsync.WithExpiry(10*time.Minute))
	lock(ext)
	time.Sleep(50 * time.Millisecond)
	if ok, err := ext.Extend(); !ok {
		fail("redsync Extend of %s failed: %v", names[2], err)
	}
	made(base(names[2], ext, 600000, fmt.Sprintf("rs.NewMutex(%q, WithExpiry(10*time.Minute)).Lock(), then "+
		"Extend() once", names[2])))

	// A waiter on it: it retries SET NX client-side and stores nothing (tries exhausted → ErrTaken).
	waiter := rs.NewMutex(names[2], redsync.WithTries(3), redsync.WithRetryDelay(50*time.Millisecond))
	var taken *redsync.ErrTaken
	if err := waiter.Lock(); !errors.As(err, &taken) {
		fail("a second Mutex on %s should have found it taken, got %v", names[2], err)
	}

	// 4. A value of the application's choosing (WithGenValueFunc): the owner is whatever it returns. Such a
	// value names no library: only a lock-like name (the generic formats) lets an inspector find it.
	custom := rs.NewMutex(names[3], redsync.WithExpiry(10*time.Minute),
		redsync.WithGenValueFunc(func() (string, error) {
			return fmt.Sprintf("settler-%d-%d", os.Getpid(), time.Now().UnixNano()%1000000), nil
		}))
	lock(custom)
	m = base(names[3], custom, 600000, fmt.Sprintf("rs.NewMutex(%q, WithExpiry(10*time.Minute), "+
		"WithGenValueFunc(settler-<pid>-<n>)).Lock()", names[3]))
	m["owner_meaning"] = "the application's WithGenValueFunc: settler-<pid>-<n>"
	made(m)

	// 5. Redlock over three pools with a quorum of 2. Here the three "servers" are databases 0, 1 and 2 of one
	// server: the keys are what three servers would hold, not the independence Redlock relies on.
	pools := []redis.Pool{goredis.NewPool(c0), goredis.NewPool(client(cfg, 1)), goredis.NewPool(client(cfg, 2))}
	multi := redsync.New(pools...).NewMutex(names[4], redsync.WithExpiry(10*time.Minute))
	lock(multi)
	for db := 0; db < 3; db++ {
		var companions []string
		for other := 0; other < 3; other++ {
			if other != db {
				companions = append(companions, fmt.Sprintf("db%d:%s", other, names[4]))
			}
		}
		m = base(names[4], multi, 600000, fmt.Sprintf("redsync.New(pool db0, pool db1, pool db2).NewMutex(%q, "+
			"WithExpiry(10*time.Minute)).Lock()  (quorum 2 of 3)", names[4]))
		m["db"] = db
		m["companions"] = companions
		m["owner_meaning"] = redsyncMeaning + "; the same value on every pool of the Redlock"
		made(m)
	}
}
