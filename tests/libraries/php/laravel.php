#!/usr/bin/php
<?php
// LockScope fixture: Laravel 8.83 (Debian php-laravel-framework) locks in Redis.
//
// Boots the pieces of a Laravel 8 application that matter (Container, Config,
// RedisManager, CacheManager, QueueManager, Bus Dispatcher, Schedule) with the
// configuration of the laravel/laravel 8.x skeleton (config/database.php,
// config/cache.php, config/queue.php) with CACHE_DRIVER=redis and
// QUEUE_CONNECTION=redis:
//   redis.client            = phpredis          (--client predis to switch)
//   redis.options.prefix    = "laravel_database_"  (Str::slug(APP_NAME,'_').'_database_')
//   redis.default.database  = 0
//   redis.cache.database    = 1                 (REDIS_CACHE_DB)
//   cache.prefix            = "laravel_cache"   -> RedisStore adds ':'
//   cache.stores.redis      = connection "cache", lock_connection "default"
// Consequence: every lock made with ->lock() lives in DB 0, but the scheduler
// mutexes (made with Repository::add) live in DB 1. Each "made" line says "db".
//
// Usage: laravel.php --port N [--prefix P] [--client phpredis|predis]
declare(strict_types=1);

namespace {
    require __DIR__ . '/_common.php';

    use Illuminate\Bus\Dispatcher as BusDispatcher;
    use Illuminate\Cache\CacheManager;
    use Illuminate\Config\Repository as Config;
    use Illuminate\Console\Scheduling\Schedule;
    use Illuminate\Container\Container;
    use Illuminate\Queue\Connectors\RedisConnector as QueueRedisConnector;
    use Illuminate\Queue\Middleware\WithoutOverlapping;
    use Illuminate\Queue\QueueManager;
    use Illuminate\Redis\RedisManager;
    use Illuminate\Support\Carbon;
    use Illuminate\Support\Facades\Cache;
    use Illuminate\Support\Facades\Facade;

    $args = fx_args(['client' => 'phpredis']);
    fx_setup_cap();
    $port = $args['port'];
    $P = $args['prefix'];
    $client = $args['opts']['client'];
    if (!in_array($client, ['phpredis', 'predis'], true)) {
        fx_fail('--client must be phpredis or predis');
    }

    require_once 'Illuminate/autoload.php';
    if ($client === 'predis') {
        require_once 'Predis/autoload.php';
    }
    require_once __DIR__ . '/_laravel_jobs.php'; // after the autoloader: the job classes use its traits
    // What the skeleton's `artisan` script defines; Schedule::command() uses it.
    define('ARTISAN_BINARY', 'artisan');
    define('LARAVEL_START', microtime(true));

    $app = new Container();
    Container::setInstance($app);
    Facade::setFacadeApplication($app);

    $redisConn = fn(int $db) => [
        'url' => null, 'host' => '127.0.0.1', 'password' => null,
        'port' => (string) $port, 'database' => (string) $db,
        'read_timeout' => 5, 'timeout' => 5,
    ];
    $app->instance('config', new Config([
        'app' => ['name' => 'Laravel'],
        'database' => ['redis' => [
            'client' => $client,
            'options' => ['cluster' => 'redis', 'prefix' => 'laravel_database_'],
            'default' => $redisConn(0),
            'cache' => $redisConn(1),
        ]],
        'cache' => [
            'default' => 'redis',
            'stores' => ['redis' => ['driver' => 'redis', 'connection' => 'cache', 'lock_connection' => 'default']],
            'prefix' => 'laravel_cache',
        ],
        'queue' => [
            'default' => 'redis',
            'connections' => ['redis' => [
                'driver' => 'redis', 'connection' => 'default', 'queue' => 'default',
                'retry_after' => 90, 'block_for' => null, 'after_commit' => false,
            ]],
        ],
    ]));
    $app->singleton('redis', function ($app) {
        $cfg = $app['config']['database.redis'];
        return new RedisManager($app, $cfg['client'], $cfg);
    });
    $app->singleton('cache', fn($app) => new CacheManager($app));
    $app->singleton('cache.store', fn($app) => $app['cache']->driver());
    $app->alias('cache', \Illuminate\Contracts\Cache\Factory::class);
    $app->alias('cache.store', \Illuminate\Contracts\Cache\Repository::class);
    $app->singleton('queue', function ($app) {
        $m = new QueueManager($app);
        $m->addConnector('redis', fn() => new QueueRedisConnector($app['redis']));
        return $m;
    });
    $app->singleton(\Illuminate\Contracts\Bus\Dispatcher::class, fn($app) =>
        new BusDispatcher($app, fn($connection = null) => $app['queue']->connection($connection)));

    $redis = $app['redis'];
    $redis->connection('default')->command('ping');

    $laravelVersion = \Illuminate\Foundation\Application::VERSION;
    $base = [
        'library' => 'Laravel',
        'package' => 'php-laravel-framework',
        'version' => $laravelVersion,
        'client' => $client === 'phpredis' ? 'phpredis ' . phpversion('redis') : 'predis ' . \Predis\Client::VERSION,
    ];
    $STR_RANDOM = '16 random alphanumeric characters [A-Za-z0-9] (Illuminate\Support\Str::random(), the Lock owner)';
    // Read a key back through the same client, bypassing the phpredis/predis prefix.
    $pttl = function (int $db, string $fullKey) use ($redis, $client): int {
        $conn = $redis->connection($db === 0 ? 'default' : 'cache');
        if ($client === 'phpredis') {
            $c = $conn->client();
            $old = $c->getOption(\Redis::OPT_PREFIX);
            $c->setOption(\Redis::OPT_PREFIX, '');
            $v = $c->pttl($fullKey);
            $c->setOption(\Redis::OPT_PREFIX, $old);
            return (int) $v;
        }
        return (int) $conn->client()->executeRaw(['PTTL', $fullKey]);
    };
    $getRaw = function (int $db, string $fullKey) use ($redis, $client) {
        $conn = $redis->connection($db === 0 ? 'default' : 'cache');
        if ($client === 'phpredis') {
            $c = $conn->client();
            $old = $c->getOption(\Redis::OPT_PREFIX);
            $c->setOption(\Redis::OPT_PREFIX, '');
            $v = $c->get($fullKey);
            $c->setOption(\Redis::OPT_PREFIX, $old);
            return $v;
        }
        return $conn->client()->executeRaw(['GET', $fullKey]);
    };
    $REDIS_PREFIX = 'laravel_database_';
    $CACHE_PREFIX = 'laravel_cache:';
    $full = fn(string $name) => $REDIS_PREFIX . $CACHE_PREFIX . $name;

    // Names this fixture uses; cleaned before (a killed earlier run may have left the
    // never-expiring ones) and after, the way the framework itself removes them.
    $queue = $P . 'podcasts';
    $schedule = new Schedule('UTC');
    $event = $schedule->command($P . 'emails:send --force')->everyFiveMinutes()->withoutOverlapping();
    $event2 = $schedule->command($P . 'report:daily')->dailyAt('02:00')->onOneServer();
    $now = Carbon::now('UTC');
    $sName = $event2->mutexName() . $now->format('Hi');
    $uniqueName = 'laravel_unique_job:' . \App\Jobs\ProcessPodcast::class . $P . 'podcast-42';
    $uniqueName2 = 'laravel_unique_job:' . \App\Jobs\RebuildSearchIndex::class . $P . 'products';
    $cleanup = function () use ($P, $uniqueName, $uniqueName2, $event, $sName, $redis, $queue) {
        foreach ([$P . 'reports:nightly', $P . 'import:users', $P . 'invoice:8812', $uniqueName, $uniqueName2] as $n) {
            Cache::lock($n)->forceRelease(); // what CallQueuedHandler does for unique jobs
        }
        $event->mutex->forget($event);      // what Event::callAfterCallbacks does
        Cache::forget($sName);               // onOneServer latches normally just expire
        $redis->connection('default')->del('queues:' . $queue, 'queues:' . $queue . ':notify');
    };
    $cleanup();

    // 1. Cache::lock('name', 120)->get(): SET key owner EX 120 NX (RedisLock::acquire).
    $lockTtl = Cache::lock($P . 'reports:nightly', 120);
    if (!$lockTtl->get()) {
        fx_fail('Cache::lock(..., 120)->get() returned false (key already held?)');
    }
    fx_made($base + [
        'db' => 0, 'key' => $full($P . 'reports:nightly'), 'type' => 'string', 'kind' => 'mutex',
        'owner' => $lockTtl->owner(), 'owner_meaning' => $STR_RANDOM,
        'lease_ms' => 120000, 'api' => "Cache::lock('{$P}reports:nightly', 120)->get()",
    ]);

    // 2. Cache::lock('name')->get() with seconds = 0: SETNX, no TTL at all.
    $lockForever = Cache::lock($P . 'import:users', 0);
    if (!$lockForever->get()) {
        fx_fail('Cache::lock(..., 0)->get() returned false');
    }
    fx_made($base + [
        'db' => 0, 'key' => $full($P . 'import:users'), 'type' => 'string', 'kind' => 'mutex',
        'owner' => $lockForever->owner(), 'owner_meaning' => $STR_RANDOM,
        'lease_ms' => null, 'api' => "Cache::lock('{$P}import:users')->get()  (seconds = 0: SETNX, never expires)",
    ]);

    // 3. Cache::lock('name', 60, 'explicit-owner'): caller-chosen owner string.
    $lockOwned = Cache::lock($P . 'invoice:8812', 60, 'worker-3:pid-4711');
    if (!$lockOwned->get()) {
        fx_fail('Cache::lock(..., 60, owner)->get() returned false');
    }
    fx_made($base + [
        'db' => 0, 'key' => $full($P . 'invoice:8812'), 'type' => 'string', 'kind' => 'mutex',
        'owner' => $lockOwned->owner(), 'owner_meaning' => 'caller-chosen owner (third argument of Cache::lock / Cache::restoreLock)',
        'lease_ms' => 60000, 'api' => "Cache::lock('{$P}invoice:8812', 60, 'worker-3:pid-4711')->get()",
    ]);

    // 4. Unique job (ShouldBeUnique, uniqueFor default 0 => no TTL), dispatched onto the redis queue.
    \App\Jobs\ProcessPodcast::dispatch($P . 'podcast-42')->onQueue($queue);
    $owner = $getRaw(0, $full($uniqueName));
    if (!is_string($owner)) {
        fx_fail("unique-job lock $uniqueName not found after dispatch");
    }
    fx_made($base + [
        'db' => 0, 'key' => $full($uniqueName), 'type' => 'string', 'kind' => 'job-lock',
        'owner' => $owner, 'owner_meaning' => $STR_RANDOM . '; nobody keeps it: the worker force-releases the key after the job',
        'lease_ms' => null,
        'api' => "ProcessPodcast::dispatch('{$P}podcast-42') with ShouldBeUnique, uniqueId(), no \$uniqueFor (0 = never expires)",
        'companions' => [$REDIS_PREFIX . 'queues:' . $queue],
        'job_class' => \App\Jobs\ProcessPodcast::class, 'unique_id' => $P . 'podcast-42',
    ]);

    // 5. Unique job with $uniqueFor = 120 (lease) and the $uniqueId property.
    \App\Jobs\RebuildSearchIndex::dispatch($P . 'products')->onQueue($queue);
    $owner2 = $getRaw(0, $full($uniqueName2));
    if (!is_string($owner2)) {
        fx_fail("unique-job lock $uniqueName2 not found after dispatch");
    }
    fx_made($base + [
        'db' => 0, 'key' => $full($uniqueName2), 'type' => 'string', 'kind' => 'job-lock',
        'owner' => $owner2, 'owner_meaning' => $STR_RANDOM,
        'lease_ms' => 120000,
        'api' => "RebuildSearchIndex::dispatch('{$P}products') with ShouldBeUnique, \$uniqueId property, \$uniqueFor = 120",
        'companions' => [$REDIS_PREFIX . 'queues:' . $queue],
        'job_class' => \App\Jobs\RebuildSearchIndex::class, 'unique_id' => $P . 'products',
    ]);
    fx_not_lock($REDIS_PREFIX . 'queues:' . $queue,
        'Laravel redis queue (list of JSON job payloads; RedisQueue::pushRaw / LuaScripts::push)', ['db' => 0, 'type' => 'list']);
    fx_not_lock($REDIS_PREFIX . 'queues:' . $queue . ':notify',
        'Laravel redis queue notify list (one "1" per pushed job, for BLPOP wake-ups)', ['db' => 0, 'type' => 'list']);

    // 6. Scheduler: withoutOverlapping() -> CacheEventMutex::create -> Repository::add (DB 1, value b:1;).
    if (!$event->mutex->create($event)) { // exactly what Event::run() does before running the command
        fx_fail('CacheEventMutex::create returned false');
    }
    $mutexName = $event->mutexName();
    fx_made($base + [
        'db' => 1, 'key' => $full($mutexName), 'type' => 'string', 'kind' => 'mutex',
        'owner' => $getRaw(1, $full($mutexName)),
        'owner_meaning' => 'no owner: PHP serialize(true) = "b:1;" (CacheEventMutex::create -> Repository::add(name, true, expiresAt*60))',
        'lease_ms' => 1440 * 60 * 1000,
        'api' => "\$schedule->command('{$P}emails:send --force')->withoutOverlapping(); Event::run -> CacheEventMutex::create",
        'mutex_name' => $mutexName,
        'hashed' => 'sha1(expression . command) = sha1("' . $event->expression . '" . "' . $event->command . '")',
    ]);

    // 7. Scheduler: onOneServer() -> CacheSchedulingMutex::create (DB 1, name + 'Hi', 3600 s).
    if (!$schedule->serverShouldRun($event2, $now)) {
        fx_fail('Schedule::serverShouldRun returned false');
    }
    fx_made($base + [
        'db' => 1, 'key' => $full($sName), 'type' => 'string', 'kind' => 'latch',
        'owner' => $getRaw(1, $full($sName)),
        'owner_meaning' => 'no owner: serialize(true) = "b:1;" (CacheSchedulingMutex::create: add(mutexName . Hi, true, 3600)); never deleted, only expires',
        'lease_ms' => 3600 * 1000,
        'api' => "\$schedule->command('{$P}report:daily')->onOneServer(); ScheduleRunCommand -> Schedule::serverShouldRun",
        'mutex_name' => $sName,
    ]);

    // 8. Queue middleware WithoutOverlapping (lock held while the job's handle() runs).
    $overlapKey = $P . 'order-7';
    $mw = (new WithoutOverlapping($overlapKey))->expireAfter(180);
    $job = new \App\Jobs\SyncOrder();
    $ranInside = false;
    $mw->handle($job, function ($job) use (&$ranInside, $mw, $full, $getRaw, $base, $STR_RANDOM, $pttl) {
        $ranInside = true;
        $name = $mw->getLockKey($job);
        $owner = $getRaw(0, $full($name));
        if (!is_string($owner)) {
            fx_fail("WithoutOverlapping lock $name not found inside the job");
        }
        fx_made($base + [
            'db' => 0, 'key' => $full($name), 'type' => 'string', 'kind' => 'job-lock',
            'owner' => $owner, 'owner_meaning' => $STR_RANDOM,
            'lease_ms' => 180000,
            'api' => "job middleware new WithoutOverlapping('" . $mw->key . "')->expireAfter(180) (held while handle() runs)",
        ]);
        fx_ready_and_hold();
    });
    if (!$ranInside) {
        fx_fail('WithoutOverlapping middleware did not run the job (lock already held?)');
    }

    // Unwound: the middleware released its lock. Release the others like an app would.
    $lockTtl->release();
    $lockForever->release();
    $lockOwned->release();
    $cleanup();
    exit(0);
}
