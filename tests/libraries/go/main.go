// LockScope fixture driver for the Go lock libraries: one binary, one subcommand per library, so
// tst_reallibraries starts one small process per library and nothing is compiled at test time.
//
// Usage: lockdriver redsync|redislock|rueidislock|redis-rate --port N [--prefix P]
//
// Contract (the same as tests/libraries/node/_common.js and python/_fixture.py): makes locks through the
// library's own API on 127.0.0.1:N, prints one {"made": {...}} line per lock key and {"not_lock": {...}}
// for other keys, then {"ready": true}; holds the locks (renewers running) until stdin reaches EOF or
// SIGTERM/SIGINT arrives, then exits 0 without releasing anything. Any failure: one line on stderr, exit 1.
// Setup is capped at 20 s.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

const setupCap = 20 * time.Second

// bg is the context of every call: go-redis' own dial and read timeouts bound them.
var bg = context.Background()

var outMu sync.Mutex

func fail(format string, a ...any) {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, a...)), " ")
	outMu.Lock() // no half line on stdout after this
	fmt.Fprintln(os.Stderr, "fixture error: "+msg)
	os.Exit(1)
}

func emit(v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail("cannot encode a line: %v", err)
	}
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

// made prints one lock; the contract's fields are checked so a driver bug is not read as a misread.
func made(m map[string]any) {
	for _, k := range []string{"library", "package", "version", "key", "type", "kind", "owner", "owner_meaning",
		"lease_ms", "api"} {
		if _, ok := m[k]; !ok {
			fail("driver bug: made line without %s", k)
		}
	}
	if _, ok := m["renewal"]; !ok {
		m["renewal"] = nil
	}
	if _, ok := m["companions"]; !ok {
		m["companions"] = []string{}
	}
	if _, ok := m["db"]; !ok {
		m["db"] = 0
	}
	emit(map[string]any{"made": m})
}

// moduleVersion is the version of a module linked into this binary, as go.sum pinned it.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

type config struct {
	port   int
	prefix string
}

func parseArgs(args []string) config {
	cfg := config{prefix: "fx:"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--port" && i+1 < len(args):
			i++
			cfg.port, _ = strconv.Atoi(args[i])
		case strings.HasPrefix(a, "--port="):
			cfg.port, _ = strconv.Atoi(strings.TrimPrefix(a, "--port="))
		case a == "--prefix" && i+1 < len(args):
			i++
			cfg.prefix = args[i]
		case strings.HasPrefix(a, "--prefix="):
			cfg.prefix = strings.TrimPrefix(a, "--prefix=")
		default:
			fail("unknown argument %q (usage: lockdriver redsync|redislock|rueidislock --port N [--prefix P])", a)
		}
	}
	if cfg.port < 1 || cfg.port > 65535 {
		fail("usage: lockdriver redsync|redislock|rueidislock|redis-rate --port N [--prefix P] (port missing or invalid)")
	}
	return cfg
}

// client connects to one database of the fixture server and fails fast when it does not answer.
func client(cfg config, db int) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:        fmt.Sprintf("127.0.0.1:%d", cfg.port),
		DB:          db,
		DialTimeout: 3 * time.Second,
		ReadTimeout: 5 * time.Second,
		MaxRetries:  1,
	})
	if err := c.Ping(bg).Err(); err != nil {
		fail("cannot reach Redis at 127.0.0.1:%d (db %d): %v", cfg.port, db, err)
	}
	return c
}

// holdUntilStopped prints {"ready": true} and returns when stdin closes (a stop signal ends the process
// wherever it is: see main).
func holdUntilStopped() {
	emit(map[string]any{"ready": true})
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: lockdriver redsync|redislock|rueidislock|redis-rate --port N [--prefix P]")
	}
	drivers := map[string]func(config){"redsync": runRedsync, "redislock": runRedislock,
		"rueidislock": runRueidislock, "redis-rate": runRedisRate}
	run, ok := drivers[os.Args[1]]
	if !ok {
		fail("unknown library %q (known: redsync, redislock, rueidislock, redis-rate)", os.Args[1])
	}
	cfg := parseArgs(os.Args[2:])
	cap := time.AfterFunc(setupCap, func() { fail("setup did not finish within %s", setupCap) })
	// A stop request, during setup or while holding, ends the driver at once, like the other drivers.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		<-stop
		os.Exit(0)
	}()
	run(cfg)
	cap.Stop()
	holdUntilStopped()
	os.Exit(0) // without releasing: the locks stay as a holder that stops leaves them
}
