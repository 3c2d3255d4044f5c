// lockscope-handoff-ceiling: the shortest Redisson hand-off a client can have on this machine, to set next to
// LockScope's. Two threads take turns at one Redisson reentrant lock with LockScope's own Lua (so the server
// does the same work): the holder sleeps the critical section, runs the unlock script (which publishes "0")
// and pauses; the other thread, blocked on its own subscriber socket, reads the message and at once sends
// the lock script. No library, no event loop, no history: raw sockets and hand-written RESP. The hand-off is
// the time from the holder reading its unlock reply to the waiter reading its lock reply.
//   lockscope-handoff-ceiling --port P --lua DIR [--seconds 3] [--cs-ms 1] [--think-ms 1] [--spin] [--fair]
//                             [--threads 2]
// --spin reads with MSG_DONTWAIT in a loop instead of sleeping in recv(): the client never waits to be woken,
// which is as short as a client-side hand-off gets. --fair takes turns at a Redisson fair lock instead (its
// queue, its timeouts, a channel per waiter): the server's work in a fair hand-off is much more than in a
// reentrant one, and grows with the queue: --threads 8 queues as many waiters as bench/run's 8 workers.
// (Without --fair, each thread has its own subscriber, so every release wakes every waiter.) Prints one JSON line.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace {

long long nowNs()
{
    timespec t {};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

[[noreturn]] void die(const std::string &why)
{
    std::fprintf(stderr, "lockscope-handoff-ceiling: %s\n", why.c_str());
    std::exit(1);
}

// One RESP connection with blocking or busy-polled reads; replies are parsed only as far as this needs.
class Connection
{
public:
    Connection(int port, bool spin)
        : m_spin(spin)
    {
        m_fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a {};
        a.sin_family = AF_INET;
        a.sin_port = htons(uint16_t(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (m_fd < 0 || connect(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
            die("cannot connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno));
        const int one = 1;
        setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ~Connection() { close(m_fd); }

    void send(const std::vector<std::string> &args)
    {
        std::string out;
        appendLength(out, '*', args.size());
        for (const std::string &s : args) {
            appendLength(out, '$', s.size());
            out.append(s).append("\r\n");
        }
        for (size_t done = 0; done < out.size();) {
            const ssize_t n = ::send(m_fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
            if (n <= 0)
                die(std::string("send failed: ") + std::strerror(errno));
            done += size_t(n);
        }
    }

    // The next reply, flattened: an integer or bulk string as its text, nil as "(nil)", an array as its
    // elements joined by spaces; an error reply ends the program.
    std::string reply()
    {
        const std::string line = readLine();
        switch (line.at(0)) {
        case ':':
        case '+':
            return line.substr(1);
        case '-':
            die("the server answered " + line);
        case '$': {
            const long len = std::stol(line.substr(1));
            if (len < 0)
                return "(nil)";
            std::string s = readBytes(size_t(len) + 2);
            return s.substr(0, size_t(len));
        }
        case '*': {
            const long n = std::stol(line.substr(1));
            std::string all;
            for (long i = 0; i < n; ++i) {
                if (i > 0)
                    all += ' ';
                all += reply();
            }
            return all;
        }
        default:
            die("unexpected reply " + line);
        }
    }

private:
    static void appendLength(std::string &out, char type, size_t n)
    {
        char head[32];
        out.append(head, size_t(std::snprintf(head, sizeof head, "%c%zu\r\n", type, n)));
    }
    void fill()
    {
        for (;;) {
            char chunk[4096];
            const ssize_t n = recv(m_fd, chunk, sizeof chunk, m_spin ? MSG_DONTWAIT : 0);
            if (n > 0) {
                m_buffer.append(chunk, size_t(n));
                return;
            }
            if (n < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            die("the connection closed");
        }
    }
    std::string readLine()
    {
        size_t end;
        while ((end = m_buffer.find("\r\n", m_read)) == std::string::npos)
            fill();
        std::string line = m_buffer.substr(m_read, end - m_read);
        consume(end + 2 - m_read);
        return line;
    }
    std::string readBytes(size_t n)
    {
        while (m_buffer.size() - m_read < n)
            fill();
        std::string s = m_buffer.substr(m_read, n);
        consume(n);
        return s;
    }
    void consume(size_t n)
    {
        m_read += n;
        if (m_read == m_buffer.size()) {
            m_buffer.clear();
            m_read = 0;
        }
    }

    int m_fd = -1;
    bool m_spin = false;
    std::string m_buffer;
    size_t m_read = 0;
};

std::string readFile(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        die("cannot read " + path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void sleepUs(long long us)
{
    const timespec t {time_t(us / 1000000), long(us % 1000000) * 1000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &t, nullptr);
}

} // namespace

int main(int argc, char **argv)
{
    int port = 0;
    std::string lua;
    double seconds = 3, csMs = 1, thinkMs = 1;
    int threads = 2;
    bool spin = false, fair = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : "";
        if (a == "--port")
            port = std::atoi(value), ++i;
        else if (a == "--lua")
            lua = value, ++i;
        else if (a == "--seconds")
            seconds = std::atof(value), ++i;
        else if (a == "--cs-ms")
            csMs = std::atof(value), ++i;
        else if (a == "--think-ms")
            thinkMs = std::atof(value), ++i;
        else if (a == "--spin")
            spin = true;
        else if (a == "--fair")
            fair = true;
        else if (a == "--threads")
            threads = std::atoi(value), ++i;
        else
            die("unknown argument " + a);
    }
    if (port <= 0 || lua.empty() || threads < 2)
        die("usage: lockscope-handoff-ceiling --port P --lua DIR [--seconds 3] [--cs-ms 1] [--think-ms 1] [--spin] [--fair] [--threads N>=2]");

    // The keys and arguments RedissonLock and RedissonFairLock pass (src/core/locks), written out.
    const std::string name = "lockscope:bench:ceiling", channel = "redisson_lock__channel:{" + name + "}";
    const std::string queue = "redisson_lock_queue:{" + name + "}", timeouts = "redisson_lock_timeout:{" + name + "}";
    const std::string lease = "30000", fairWaitMs = "300000", unlockLatchMs = "16000";
    Connection setup(port, false);
    setup.send({"SCRIPT", "LOAD", readFile(lua + (fair ? "/redisson_fair_lock.lua" : "/redisson_lock.lua"))});
    const std::string lockSha = setup.reply();
    setup.send({"SCRIPT", "LOAD", readFile(lua + (fair ? "/redisson_fair_unlock.lua" : "/redisson_unlock.lua"))});
    const std::string unlockSha = setup.reply();
    setup.send({"DEL", name, queue, timeouts});
    setup.reply();
    auto wallMs = [] {
        timespec t {};
        clock_gettime(CLOCK_REALTIME, &t);
        return std::to_string(t.tv_sec * 1000LL + t.tv_nsec / 1000000);
    };
    // A fair lock's release wakes only the head of its queue, on that waiter's own channel.
    auto waitChannel = [&](const std::string &owner) { return fair ? channel + ":" + owner : channel; };

    std::atomic_llong releases {0}; // each one published a message to every subscriber
    std::atomic_int subscribed {0}; // no release before both threads listen: each counts every message
    std::atomic_bool stop {false};
    std::mutex samplesMutex;
    struct Event
    {
        long long ns;
        int worker;
        bool release; // else an acquisition that waited for a message
    };
    std::vector<Event> events;
    long long acquisitions = 0;

    auto worker = [&](int id) {
        prctl(PR_SET_TIMERSLACK, 1000UL); // as LockScope's loops and workers (1 µs)
        Connection commands(port, spin), subscriber(port, spin);
        const std::string owner = "ceiling-client:" + std::to_string(id);
        subscriber.send({"SUBSCRIBE", waitChannel(owner)});
        subscriber.reply();
        ++subscribed;
        while (subscribed.load() < threads)
            std::this_thread::yield();
        std::vector<Event> mine;
        long long acquired = 0, messagesRead = 0;
        while (!stop.load()) {
            // Try; when refused, wait for a release message and try again. (Redisson also wakes at the holder's
            // TTL, for a lost message; on a private server none is lost, and a hang would end in bench/run's
            // timeout.)
            bool waited = false, acquiredNow = false;
            while (!stop.load()) {
                const long long releasedBefore = releases.load();
                if (fair)
                    commands.send({"EVALSHA", lockSha, "3", name, queue, timeouts, lease, owner, fairWaitMs, wallMs()});
                else
                    commands.send({"EVALSHA", lockSha, "1", name, lease, owner});
                if (commands.reply() == "(nil)") {
                    acquiredNow = true;
                    break;
                }
                // Messages of releases from before this attempt (this thread's own among them) say nothing
                // new: read them first, then wait for the next one. A fair lock's refused attempt queued this
                // thread, and only the release after it publishes to this thread's channel.
                for (; !fair && messagesRead < releasedBefore; ++messagesRead)
                    subscriber.reply();
                subscriber.reply(); // "message <channel> 0"
                ++messagesRead;
                waited = true;
            }
            if (!acquiredNow)
                break; // stopped while waiting
            const long long gotNs = nowNs();
            ++acquired;
            if (waited)
                mine.push_back({gotNs, id, false});
            sleepUs((long long)(csMs * 1000));
            if (fair)
                commands.send({"EVALSHA", unlockSha, "4", name, queue, timeouts, channel, "0", lease, owner, wallMs(),
                               unlockLatchMs});
            else
                commands.send({"EVALSHA", unlockSha, "2", name, channel, "0", lease, owner, "0"});
            if (const std::string r = commands.reply(); r != "1")
                die("the unlock script answered " + r + ", not 1 (released)");
            mine.push_back({nowNs(), id, true});
            ++releases;
            sleepUs((long long)(thinkMs * 1000));
        }
        std::lock_guard lock(samplesMutex);
        events.insert(events.end(), mine.begin(), mine.end());
        acquisitions += acquired;
    };
    const long long startNs = nowNs();
    std::vector<std::thread> workers;
    for (int i = 0; i < threads; ++i)
        workers.emplace_back(worker, i);
    sleepUs((long long)(seconds * 1e6));
    stop = true;
    const double elapsed = double(nowNs() - startNs) / 1e9;
    // A waiter blocked on its subscriber socket needs one more release to notice the stop.
    for (int i = 0; i < 3; ++i) {
        for (int t = 0; t < threads; ++t) {
            setup.send({"PUBLISH", waitChannel("ceiling-client:" + std::to_string(t)), "0"});
            setup.reply();
        }
        sleepUs(20000);
    }
    for (std::thread &t : workers)
        t.join();
    // As LockScope's report counts them: an acquisition after a wait, from the other thread's last release
    // before it (a waiter that read its reply before the holder read its own has no hand-off to time).
    std::sort(events.begin(), events.end(), [](const Event &x, const Event &y) { return x.ns < y.ns; });
    std::vector<long long> handoffsNs;
    const Event *lastRelease = nullptr;
    for (const Event &e : events) {
        if (e.release)
            lastRelease = &e;
        else if (lastRelease && lastRelease->worker != e.worker)
            handoffsNs.push_back(e.ns - lastRelease->ns);
    }
    std::sort(handoffsNs.begin(), handoffsNs.end());
    auto pct = [&](double p) {
        return handoffsNs.empty() ? 0.0 : double(handoffsNs[size_t(p * double(handoffsNs.size() - 1))]) / 1000.0;
    };
    std::printf("{\"threads\":%d,\"fair\":%s,\"spin\":%s,\"handoffs\":%zu,\"handoff_p50_us\":%.1f,\"handoff_p99_us\":%.1f,\"cycles_per_s\":%.1f}\n",
                threads, fair ? "true" : "false", spin ? "true" : "false", handoffsNs.size(), pct(0.5), pct(0.99), double(acquisitions) / elapsed);
    return 0;
}
