// go-redis/redis_rate v10 on go-redis v9: a GCRA rate limiter, no lock (issue 41). Limiter.Allow runs its
// allowN script (lua.go): the key 'rate:<key>' holds the theoretical arrival time, a decimal number of
// seconds since 2017-01-01 with microseconds (313335151.34025902), SET with EX ceil(reset_after). A number
// like that under a lock word is no owner: it must not be read as a mutex held by "313335151.34025902".
package main

import (
	"github.com/go-redis/redis_rate/v10"
)

func runRedisRate(cfg config) {
	c := client(cfg, 0)
	limiter := redis_rate.NewLimiter(c)
	// Names the application chose after what they limit, lock words included ("the /lock endpoint").
	for _, id := range []string{cfg.prefix + "lock-api:10.1.2.3", cfg.prefix + "mutex:login:user-7",
		cfg.prefix + "reports"} {
		c.Del(bg, "rate:"+id) // a killed earlier run's
		for i := 0; i < 3; i++ {
			if _, err := limiter.Allow(bg, id, redis_rate.PerMinute(10)); err != nil {
				fail("redis_rate Allow(%s) failed: %v", id, err)
			}
		}
		v, err := c.Get(bg, "rate:"+id).Result()
		if err != nil {
			fail("redis_rate wrote no rate:%s: %v", id, err)
		}
		emit(map[string]any{"not_lock": map[string]any{"key": "rate:" + id, "type": "string",
			"case": "gcra-" + id[len(cfg.prefix):], "strict": true,
			"why": "go-redis/redis_rate " + moduleVersion("github.com/go-redis/redis_rate/v10") +
				" GCRA limiter: the value " + v + " is a theoretical arrival time in seconds since " +
				"2017-01-01, nobody holds it"}})
	}
}
