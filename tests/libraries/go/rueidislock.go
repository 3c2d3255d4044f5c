// rueidislock (github.com/redis/rueidis/rueidislock): a library outside the catalog (issue 31). NewLocker
// defaults: KeyPrefix "rueidislock", KeyMajority 2 of 2*2-1 = 3 keys, KeyValidity 5 s, ExtendInterval half
// of it. try(): val = 24 random bytes (util.RandomBytes, raw binary, not text), then for each i in 0..2 a Lua
// SET rueidislock:<i>:<name> val NX PXAT now+validity; every held key gets its own goroutine that runs the
// extend script (GET == val -> PEXPIREAT now+validity) every ExtendInterval until the context ends (lock.go
// try, keyname, random). A lock is held while a majority of its keys are.
package main

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

func runRueidislock(cfg config) {
	version := moduleVersion("github.com/redis/rueidis")
	c := client(cfg, 0)
	addr := fmt.Sprintf("127.0.0.1:%d", cfg.port)
	hold := func(name string, majority int32, validity time.Duration) {
		locker, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption: rueidis.ClientOption{InitAddress: []string{addr}},
			// TryNextAfter (20 ms by default) is how long one key's SET may take before the next key is
			// tried; on a machine loaded by every driver starting at once 20 ms can pass for every key.
			// NoLoopTracking: without it (the default) each extend's own PEXPIREAT comes back to this client
			// as a client-side-cache invalidation, which runs the extend again at once (monitoring in
			// lock.go): measured here on Redis 7.0, about 22,000 EVALSHA a second for two locks, for as long
			// as they are held. With NOLOOP the keys are extended every ExtendInterval, as documented.
			KeyMajority: majority, KeyValidity: validity, TryNextAfter: time.Second, NoLoopTracking: true})
		if err != nil {
			fail("rueidislock.NewLocker: %v", err)
		}
		for i := int32(0); i < 2*majority-1; i++ {
			c.Del(bg, fmt.Sprintf("rueidislock:%d:%s", i, name)) // a killed earlier run's
		}
		if _, _, err := locker.TryWithContext(bg, name); err != nil {
			fail("rueidislock could not lock %s: %v", name, err)
		}
		var group []string
		for i := int32(0); i < 2*majority-1; i++ {
			group = append(group, fmt.Sprintf("rueidislock:%d:%s", i, name))
		}
		// TryWithContext returns once a majority is held; the other keys are taken right after (or not, when
		// another holder has them): wait up to 1 s for all of them.
		for wait := time.Now(); time.Since(wait) < time.Second; time.Sleep(20 * time.Millisecond) {
			if n, _ := c.Exists(bg, group...).Result(); n == int64(len(group)) {
				break
			}
		}
		for i, key := range group {
			val, err := c.Get(bg, key).Bytes()
			if err != nil {
				continue // a key it did not take (it needs only a majority)
			}
			made(map[string]any{"library": "rueidislock", "package": "github.com/redis/rueidis", "version": version,
				"case": fmt.Sprintf("majority-%d-key-%d", majority, i), "key": key,
				"type": "string", "kind": "mutex", "owner": hex.EncodeToString(val),
				"owner_meaning": "24 random bytes stored raw (util.RandomBytes), one value for all keys of the " +
					"lock; shown here as hex", "lease_ms": validity.Milliseconds(), "group": group,
				"renewal": map[string]any{"every_ms": (validity / 2).Milliseconds(),
					"rule": "a goroutine per key runs the extend script (PEXPIREAT now+KeyValidity) every " +
						"ExtendInterval = KeyValidity/2"},
				"api": fmt.Sprintf("rueidislock.NewLocker({KeyMajority: %d, KeyValidity: %s, NoLoopTracking: true}).TryWithContext(ctx, %q)",
					majority, validity, name)})
		}
	}
	// 1. The defaults: three keys, 5 s validity extended every 2.5 s.
	hold(cfg.prefix+"orders", 2, 5*time.Second)
	// 2. One key, 6 s validity extended every 3 s.
	hold(cfg.prefix+"billing", 1, 6*time.Second)
}
