#!/usr/bin/php
<?php
// LockScope fixture: Symfony Semaphore 5.4 (Debian php-symfony-semaphore) with its RedisStore.
//
// Symfony\Component\Semaphore\Store\RedisStore keeps, per resource R, two ZSETs with the
// hash-tag braces in the name:
//   "{R}:weight"  member <token> score <weight>           (permits each holder uses)
//   "{R}:time"    member <token> score <expiry, Unix s>    (lease of each holder)
// Both are EXPIREAT (latest expiry + 10 s). The limit is NOT stored in Redis.
//
// Usage: symfony-semaphore.php --port N [--prefix P] [--client phpredis|predis]
declare(strict_types=1);

require __DIR__ . '/_common.php';

use Symfony\Component\Semaphore\SemaphoreFactory;
use Symfony\Component\Semaphore\Store\RedisStore;

$args = fx_args(['client' => 'phpredis']);
fx_setup_cap();
$P = $args['prefix'];
$client = $args['opts']['client'];

require_once 'Symfony/Component/Semaphore/autoload.php';
if ($client === 'phpredis') {
    $redis = new \Redis();
    if (!$redis->connect('127.0.0.1', $args['port'], 5.0, null, 0, 5.0)) {
        fx_fail("cannot connect to 127.0.0.1:{$args['port']}");
    }
    $zrange = fn(string $k) => $redis->zRange($k, 0, -1, true);
    $pttl = fn(string $k) => (int) $redis->pttl($k);
    $clientName = 'phpredis ' . phpversion('redis');
} elseif ($client === 'predis') {
    require_once 'Predis/autoload.php';
    $redis = new \Predis\Client(['host' => '127.0.0.1', 'port' => $args['port'], 'timeout' => 5.0, 'read_write_timeout' => 5.0]);
    $redis->connect();
    $zrange = fn(string $k) => $redis->zrange($k, 0, -1, ['withscores' => true]);
    $pttl = fn(string $k) => (int) $redis->pttl($k);
    $clientName = 'predis ' . \Predis\Client::VERSION;
} else {
    fx_fail('--client must be phpredis or predis');
}

$deb = fx_deb_version('php-symfony-semaphore');
$base = [
    'library' => 'Symfony Semaphore',
    'package' => 'php-symfony-semaphore',
    'version' => fx_upstream($deb),
    'debian_version' => $deb,
    'client' => $clientName,
    'db' => 0,
    'type' => 'zset',
    'kind' => 'semaphore',
];
$TOKEN = 'base64_encode(random_bytes(32)): 44 characters [A-Za-z0-9+/] ending in "=" (RedisStore::getUniqueToken), one member per holder in both ZSETs';

$members = function (string $key) use ($zrange): array {
    $out = [];
    foreach ($zrange($key) as $m => $s) {
        $out[(string) $m] = (int) $s;
    }
    return $out;
};

$factory = new SemaphoreFactory(new RedisStore($redis));

$resA = $P . 'pdf-render';
$resB = $P . 'exports';
$redis->del("{{$resA}}:weight", "{{$resA}}:time", "{{$resB}}:weight", "{{$resB}}:time");

// A: limit 3, two holders of weight 1, lease 120 s; a third holder would still fit.
$a1 = $factory->createSemaphore($resA, 3, 1, 120.0, false);
$a2 = $factory->createSemaphore($resA, 3, 1, 120.0, false);
if (!$a1->acquire() || !$a2->acquire()) {
    fx_fail("could not acquire 2 permits of $resA");
}
$w = $members("{{$resA}}:weight");
fx_made($base + [
    'key' => "{{$resA}}:weight",
    'owner' => array_keys($w), 'owner_meaning' => $TOKEN,
    'lease_ms' => 120000,
    'renewal' => null,
    'companions' => ["{{$resA}}:time"],
    'permits_total' => 3, 'permits_held' => array_sum($w),
    'permits_total_stored' => false,
    'api' => "(new SemaphoreFactory(new RedisStore(\$redis)))->createSemaphore('$resA', 3, 1, 120.0)->acquire() x2",
    'members' => $w, 'time_members' => $members("{{$resA}}:time"),
    'key_ttl_rule' => 'both keys EXPIREAT max(expiry)+10 s, so PTTL is about lease + 10 s',
]);

// B: limit 4, one holder of weight 3, lease 45 s; then a contender of weight 2 is refused.
$b1 = $factory->createSemaphore($resB, 4, 3, 45.0, false);
if (!$b1->acquire()) {
    fx_fail("could not acquire weight 3 of $resB");
}
$contender = $factory->createSemaphore($resB, 4, 2, 45.0, false);
$refused = !$contender->acquire();
$w = $members("{{$resB}}:weight");
$weightPttl = $pttl("{{$resB}}:weight");
fx_made($base + [
    'key' => "{{$resB}}:weight",
    'owner' => array_keys($w), 'owner_meaning' => $TOKEN,
    'lease_ms' => 45000,
    'renewal' => null,
    'companions' => ["{{$resB}}:time"],
    'permits_total' => 4, 'permits_held' => array_sum($w),
    'permits_total_stored' => false,
    'api' => "createSemaphore('$resB', 4, 3, 45.0)->acquire(); then createSemaphore('$resB', 4, 2)->acquire() refused",
    'members' => $w, 'time_members' => $members("{{$resB}}:time"),
    'contender_refused' => $refused,
    'weight_key_pttl_after_refusal' => $weightPttl,
    'key_ttl_rule' => 'a refused acquire() rewrites "{R}:weight" with ZINTERSTORE and returns before EXPIREAT: the weight key then has NO TTL (PTTL -1) while "{R}:time" keeps lease + 10 s',
]);

fx_ready_and_hold();

$a1->release();
$a2->release();
$b1->release();
exit(0);
