#!/usr/bin/php
<?php
// LockScope fixture: Symfony Lock 5.4 (Debian php-symfony-lock) with its RedisStore.
//
// Symfony\Component\Lock\Store\RedisStore (5.2+) stores every lock as a ZSET:
//   member <token> score <expiry, Unix ms>  for each holder (token = base64 of 32 random bytes)
//   member "__write__" (same score)        while the lock is held exclusively (Lock::acquire)
// and PEXPIREATs the key at the highest score. Read locks (Lock::acquireRead) add one
// member per reader and no "__write__".
//
// Usage: symfony-lock.php --port N [--prefix P] [--client phpredis|predis]
declare(strict_types=1);

require __DIR__ . '/_common.php';

use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore;

$args = fx_args(['client' => 'phpredis']);
fx_setup_cap();
$P = $args['prefix'];
$client = $args['opts']['client'];

require_once 'Symfony/Component/Lock/autoload.php';
if ($client === 'phpredis') {
    $redis = new \Redis();
    if (!$redis->connect('127.0.0.1', $args['port'], 5.0, null, 0, 5.0)) {
        fx_fail("cannot connect to 127.0.0.1:{$args['port']}");
    }
    $zrange = fn(string $k) => $redis->zRange($k, 0, -1, true);
    $clientName = 'phpredis ' . phpversion('redis');
} elseif ($client === 'predis') {
    require_once 'Predis/autoload.php';
    $redis = new \Predis\Client(['host' => '127.0.0.1', 'port' => $args['port'], 'timeout' => 5.0, 'read_write_timeout' => 5.0]);
    $redis->connect();
    $zrange = fn(string $k) => $redis->zrange($k, 0, -1, ['withscores' => true]);
    $clientName = 'predis ' . \Predis\Client::VERSION;
} else {
    fx_fail('--client must be phpredis or predis');
}

$deb = fx_deb_version('php-symfony-lock');
$base = [
    'library' => 'Symfony Lock',
    'package' => 'php-symfony-lock',
    'version' => fx_upstream($deb),
    'debian_version' => $deb,
    'client' => $clientName,
    'db' => 0,
];
$TOKEN = 'base64_encode(random_bytes(32)): 44 characters [A-Za-z0-9+/] ending in "=" (RedisStore::getUniqueToken), one ZSET member per holder';

// What the store holds, read back: member => score (expiry in Unix ms).
$holders = function (string $key) use ($zrange): array {
    $out = [];
    foreach ($zrange($key) as $member => $score) {
        $out[(string) $member] = (int) $score;
    }
    return $out;
};

$store = new RedisStore($redis); // initialTtl = 300.0 s
$factory = new LockFactory($store);

$resExclusive = $P . 'invoice-pdf:42';
$resDefault = $P . 'nightly-export';
$resShared = $P . 'catalog';
// Clean leftovers of a killed earlier run (they expire anyway within 5 minutes).
$redis->del($resExclusive, $resDefault, $resShared);

// 1. Exclusive lock with a 30 s TTL: save() with the store's 300 s, then refresh() to 30 s.
$l1 = $factory->createLock($resExclusive, 30.0, false);
if (!$l1->acquire()) {
    fx_fail("could not acquire $resExclusive");
}
$h = $holders($resExclusive);
$tok = array_values(array_diff(array_keys($h), ['__write__']));
fx_made($base + [
    'key' => $resExclusive, 'type' => 'zset', 'kind' => 'rw', 'mode' => 'write',
    'owner' => $tok[0], 'owner_meaning' => $TOKEN,
    'lease_ms' => 30000,
    'api' => "(new LockFactory(new RedisStore(\$redis)))->createLock('$resExclusive', 30.0)->acquire()",
    'members' => $h,
    'note' => 'exclusive = the "__write__" member is present with the same score as the token',
]);

// 2. Exclusive lock with ttl = null: no refresh(), so the store's initialTtl (300 s) is the lease.
$l2 = $factory->createLock($resDefault, null, false);
if (!$l2->acquire()) {
    fx_fail("could not acquire $resDefault");
}
$h = $holders($resDefault);
$tok = array_values(array_diff(array_keys($h), ['__write__']));
fx_made($base + [
    'key' => $resDefault, 'type' => 'zset', 'kind' => 'rw', 'mode' => 'write',
    'owner' => $tok[0], 'owner_meaning' => $TOKEN,
    'lease_ms' => 300000,
    'api' => "createLock('$resDefault', null)->acquire()  (RedisStore initialTtl 300 s; RedisStore cannot store a lock without TTL)",
    'members' => $h,
]);

// 3. Shared (read) lock held by two readers, TTL 60 s each.
$r1 = $factory->createLock($resShared, 60.0, false);
$r2 = $factory->createLock($resShared, 60.0, false);
if (!$r1->acquireRead()) {
    fx_fail("reader 1 could not acquireRead $resShared");
}
$first = array_keys($holders($resShared));
if (!$r2->acquireRead()) {
    fx_fail("reader 2 could not acquireRead $resShared");
}
$h = $holders($resShared);
$second = array_values(array_diff(array_keys($h), $first));
$owners = [$first[0], $second[0]];
// A writer must now be refused (observable: the key is unchanged, no "__write__").
$w = $factory->createLock($resShared, 60.0, false);
$writerRefused = !$w->acquire();
fx_made($base + [
    'key' => $resShared, 'type' => 'zset', 'kind' => 'rw', 'mode' => 'read',
    'owner' => $owners, 'owner_meaning' => $TOKEN . '; read-held: one member per reader, no "__write__"',
    'lease_ms' => 60000,
    'api' => "createLock('$resShared', 60.0)->acquireRead() by two Lock objects",
    'members' => $h, 'readers' => 2, 'writer_refused' => $writerRefused,
]);

fx_ready_and_hold();

$l1->release();
$l2->release();
$r1->release();
$r2->release();
exit(0);
