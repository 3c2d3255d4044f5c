#!/usr/bin/ruby
# frozen_string_literal: true
#
# LockScope fixture: Sidekiq 6.4 (Debian ruby-sidekiq) with redis-rb 4.8 (ruby-redis).
#
# Sidekiq 6.4 (OSS) takes NO lock in Redis: the scheduled-set poller (sidekiq/scheduled.rb)
# moves due jobs with ZRANGEBYSCORE/ZREM races instead of a lock, and redis-rb has no lock
# helper. This driver therefore prints only {"not_lock": ...} lines: the keys Sidekiq
# writes that carry identities, timestamps or TTLs and could be mistaken for locks.
# Usage: sidekiq.rb --port N [--prefix P]
require "json"

$stdout.sync = true
STOP = Queue.new

def fail!(msg)
  $stderr.puts "fixture error: #{msg.to_s.gsub(/\s+/, ' ')}"
  exit!(1)
end

def emit(obj) = $stdout.puts(JSON.generate(obj))

port = nil
prefix = "fx:"
args = ARGV.dup
until args.empty?
  a = args.shift
  case a
  when "--port" then port = args.shift
  when "--prefix" then prefix = args.shift or fail!("--prefix needs a value")
  else fail!("unknown argument #{a}; usage: --port N [--prefix P]")
  end
end
fail!("--port N (1..65535) is required") unless port&.match?(/\A\d+\z/) && (1..65_535).cover?(port.to_i)

setup = Thread.new { sleep 20; fail!("setup took longer than 20 s") }
begin
  require "sidekiq"
  require "sidekiq/launcher"
  require "sidekiq/api"
  Redis.silence_deprecations = true if Redis.respond_to?(:silence_deprecations=)

  url = "redis://127.0.0.1:#{port}/0"
  Sidekiq.configure_client { |c| c.redis = { url: url, connect_timeout: 5, read_timeout: 5 } }
  Sidekiq.configure_server { |c| c.redis = { url: url, connect_timeout: 5, read_timeout: 5 } }
  Sidekiq.logger.level = Logger::WARN

  queue = "#{prefix}default"
  jid_now = Sidekiq::Client.push("class" => "HardWorker", "args" => [1, "a"], "queue" => queue)
  jid_later = Sidekiq::Client.push("class" => "HardWorker", "args" => [2], "queue" => queue,
                                   "at" => Time.now.to_f + 3600)
  base = { "library" => "Sidekiq", "package" => "ruby-sidekiq", "version" => Sidekiq::VERSION,
           "redis_rb" => Redis::VERSION }
  emit("not_lock" => base.merge("key" => "queue:#{queue}", "type" => "list",
                                "why" => "Sidekiq queue: list of JSON jobs (jid = 24 hex chars)"))
  emit("not_lock" => base.merge("key" => "queues", "type" => "set",
                                "why" => "Sidekiq set of queue names (shared)"))
  emit("not_lock" => base.merge("key" => "schedule", "type" => "zset",
                                "why" => "Sidekiq scheduled jobs: ZSET member = job JSON, score = run-at Unix time (float s); " \
                                         "looks like a lease table but is not a lock (same shape: retry, dead)"))

  # One heartbeat of a server process, as Launcher#start_heartbeat does every 5 s.
  opts = Sidekiq.options.merge(queues: [queue], concurrency: 2, timeout: 1)
  launcher = Sidekiq::Launcher.new(opts)
  launcher.send(:❤)
  identity = launcher.identity
  emit("not_lock" => base.merge("key" => identity, "type" => "hash",
                                "why" => "Sidekiq process heartbeat (hostname:pid:12-hex nonce): info/busy/beat/rtt_us/quiet/rss, " \
                                         "EXPIRE 60 s renewed every 5 s; liveness, not a lock"))
  emit("not_lock" => base.merge("key" => "processes", "type" => "set",
                                "why" => "Sidekiq set of live process identities (shared)"))
  today = Time.now.utc.strftime("%Y-%m-%d")
  %w[processed failed].each do |s|
    emit("not_lock" => base.merge("key" => "stat:#{s}", "type" => "string",
                                  "why" => "Sidekiq counter (shared), written by every heartbeat"))
    emit("not_lock" => base.merge("key" => "stat:#{s}:#{today}", "type" => "string",
                                  "why" => "Sidekiq daily counter (shared), TTL STATS_TTL = 5 years"))
  end
rescue StandardError, LoadError => e
  fail!("#{e.class}: #{e.message}")
end
setup.kill

%w[TERM INT].each { |s| Signal.trap(s) { STOP << :signal } }
reader = Thread.new do
  $stdin.read
  STOP << :eof
rescue StandardError
  STOP << :eof
end
emit("ready" => true)
STOP.pop
reader.kill

begin
  Sidekiq.redis do |c|
    c.srem("processes", identity)
    c.unlink(identity, "#{identity}:workers")
    # The heartbeat added 0 to the shared counters; drop them if nothing else counted.
    %w[processed failed].each do |s|
      ["stat:#{s}", "stat:#{s}:#{Time.now.utc.strftime('%Y-%m-%d')}"].each { |k| c.del(k) if c.get(k) == "0" }
    end
  end
  Sidekiq::Queue.new(queue).clear
  Sidekiq::ScheduledSet.new.find_job(jid_later)&.delete
  _ = jid_now
rescue StandardError
  nil
end
exit(0)
