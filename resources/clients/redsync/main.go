// LockScope client adapter for redsync (github.com/go-redsync/redsync/v4 over go-redis v9), the Go Redlock:
// one go-redis client per server LockScope names, a Mutex across all of them (a single server is a quorum
// of one), so that the Simulator's workers lock the way Go applications on redsync do
// (docs/client-protocol.md).
//
// acquire is Mutex.TryLock (wait_ms 0) or Mutex.LockContext with a deadline of wait_ms, redsync retrying at
// its own pace (every 50 to 250 ms) until then; release is Unlock, extend is Extend with a Mutex of the new
// expiry and the same value. redsync has no watchdog, no reentrancy (every Lock draws a new value) and no
// lock without expiry (a zero expiry leaves no validity, so it gives the lock back). The counter is read
// and written on servers[0]'s client.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"
)

const module = "github.com/go-redsync/redsync/v4"

var supports = map[string]bool{
	"lease": true, "no_lease": false, "extend": true, "auto_renewal": false, "renewal_events": false,
	"reentrant": false, "fencing": false, "release_not_held": true,
}

// refusal is an answer the protocol has a reason for ("timeout", "not-held", "unsupported", "error").
type refusal struct{ reason, text string }

func (r refusal) Error() string { return r.text }

type adapter struct {
	clients []*goredislib.Client
	rs      *redsync.Redsync
	held    map[string]*redsync.Mutex // lock -> the mutex that holds it
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(version())
		return
	}
	a := &adapter{held: map[string]*redsync.Mutex{}}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var request map[string]any
			reply := map[string]any{"ok": true}
			if jsonErr := json.Unmarshal([]byte(line), &request); jsonErr != nil {
				reply["ok"], reply["reason"], reply["error"] = false, "error", "not JSON: "+jsonErr.Error()
			} else {
				reply["id"] = request["id"]
				a.answer(request, reply)
			}
			encoded, _ := json.Marshal(reply)
			out.Write(append(encoded, '\n'))
			out.Flush()
			if request["op"] == "quit" {
				break
			}
		}
		if err != nil {
			break // end of input: what this worker holds stays in Redis, as with any client that goes away
		}
	}
	out.Flush()
	os.Exit(0)
}

func (a *adapter) answer(request map[string]any, reply map[string]any) {
	op, _ := request["op"].(string)
	var err error
	switch op {
	case "hello":
		err = a.hello(request, reply)
	case "acquire":
		err = a.acquire(request, reply)
	case "release":
		err = a.release(str(request, "lock"))
	case "extend":
		err = a.extend(str(request, "lock"), num(request, "lease_ms"))
	case "read":
		value, readErr := a.clients[0].Get(context.Background(), str(request, "key")).Result()
		switch {
		case errors.Is(readErr, goredislib.Nil):
			reply["value"] = nil
		case readErr != nil:
			err = readErr
		default:
			n, parseErr := strconv.ParseInt(value, 10, 64)
			reply["value"], err = n, parseErr
		}
	case "write":
		err = a.clients[0].Set(context.Background(), str(request, "key"), num(request, "value"), 0).Err()
	case "quit":
	default:
		err = refusal{"unsupported", "unknown op " + op}
	}
	if err != nil {
		var r refusal
		if !errors.As(err, &r) {
			r = refusal{"error", fmt.Sprintf("%T: %v", err, err)}
		}
		reply["ok"], reply["reason"], reply["error"] = false, r.reason, strings.ReplaceAll(r.text, "\n", "; ")
	}
}

func (a *adapter) hello(request map[string]any, reply map[string]any) error {
	servers, _ := request["servers"].([]any)
	var pools []redsyncredis.Pool
	for _, s := range servers {
		server, _ := s.(map[string]any)
		addr := fmt.Sprintf("%v:%v", server["host"], num(server, "port"))
		client := goredislib.NewClient(&goredislib.Options{Addr: addr, DialTimeout: 3 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := client.Ping(ctx).Err() // connects now: an unreachable server fails the hello
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		a.clients = append(a.clients, client)
		pools = append(pools, goredis.NewPool(client))
	}
	if len(pools) == 0 {
		return refusal{"error", "hello names no server"}
	}
	a.rs = redsync.New(pools...)
	reply["library"], reply["version"], reply["supports"] = "redsync", version(), supports
	return nil
}

func (a *adapter) acquire(request map[string]any, reply map[string]any) error {
	lock, leaseMs, waitMs := str(request, "lock"), num(request, "lease_ms"), num(request, "wait_ms")
	if leaseMs <= 0 {
		return refusal{"error", "redsync makes no lock without expiry: a zero expiry leaves no validity"}
	}
	mutex := a.rs.NewMutex(lock, redsync.WithExpiry(time.Duration(leaseMs)*time.Millisecond),
		redsync.WithTries(math.MaxInt32))
	var err error
	if waitMs <= 0 {
		err = mutex.TryLock()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(waitMs)*time.Millisecond)
		err = mutex.LockContext(ctx)
		cancel()
	}
	if err != nil {
		var taken *redsync.ErrTaken
		var nodeTaken *redsync.ErrNodeTaken
		var redisErr *redsync.RedisError
		if errors.Is(err, redsync.ErrFailed) || errors.As(err, &taken) ||
			(errors.As(err, &nodeTaken) && !errors.As(err, &redisErr)) {
			return refusal{"timeout", fmt.Sprintf("not acquired within %d ms (%v)", waitMs, err)}
		}
		return err
	}
	a.held[lock] = mutex
	reply["token"] = mutex.Value()
	return nil
}

func (a *adapter) release(lock string) error {
	mutex := a.held[lock]
	if mutex == nil {
		return refusal{"not-held", "not held by this worker"}
	}
	delete(a.held, lock)
	ok, err := mutex.Unlock()
	if ok {
		return nil
	}
	if notHeld(err, redsync.ErrLockAlreadyExpired) {
		return refusal{"not-held", fmt.Sprintf("Unlock found no quorum holding this worker's value (%v)", err)}
	}
	return err
}

func (a *adapter) extend(lock string, leaseMs int64) error {
	mutex := a.held[lock]
	if mutex == nil {
		return refusal{"not-held", "not held by this worker"}
	}
	// Extend resets the mutex's own expiry: a mutex of the new expiry, holding the same value.
	extended := a.rs.NewMutex(lock, redsync.WithExpiry(time.Duration(leaseMs)*time.Millisecond),
		redsync.WithValue(mutex.Value()))
	ok, err := extended.Extend()
	if ok {
		a.held[lock] = extended
		return nil
	}
	if notHeld(err, redsync.ErrExtendFailed) {
		return refusal{"not-held", fmt.Sprintf("Extend found no quorum holding this worker's value (%v)", err)}
	}
	return err
}

// Whether a failed Unlock or Extend says the lock is not this worker's (the servers answered: another value,
// or none) rather than that a server could not be reached. redsync counts a server that answered "not
// yours" as taken (ErrTaken, ErrNodeTaken); Unlock's "nothing there" is ErrLockAlreadyExpired.
func notHeld(err error, gone error) bool {
	var redisErr *redsync.RedisError
	if err == nil {
		return true
	}
	if errors.As(err, &redisErr) {
		return false
	}
	var taken *redsync.ErrTaken
	var nodeTaken *redsync.ErrNodeTaken
	return errors.Is(err, gone) || errors.As(err, &taken) || errors.As(err, &nodeTaken)
}

func str(m map[string]any, name string) string {
	s, _ := m[name].(string)
	return s
}

func num(m map[string]any, name string) int64 {
	f, _ := m[name].(float64)
	return int64(f)
}
