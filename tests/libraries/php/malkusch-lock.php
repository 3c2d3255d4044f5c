#!/usr/bin/php
<?php
// LockScope fixture: malkusch/lock 2.2 (Debian php-malkusch-lock): PHPRedisMutex and PredisMutex.
//
// RedisMutex (a RedLock over the given servers; here one server) -> SpinlockMutex:
//   key   "lock_" . <name>                       (SpinlockMutex::PREFIX)
//   value bin2hex(random_bytes(16))              (32 lowercase hex chars, new for every attempt)
//   SET key value NX EX (timeout + 1)            (timeout = the constructor's $timeout, default 3 s)
// The lock only exists inside Mutex::synchronized(callable); this fixture holds it by waiting
// inside the callable.
//
// Usage: malkusch-lock.php --port N [--prefix P]
declare(strict_types=1);

require __DIR__ . '/_common.php';

use malkusch\lock\exception\ExecutionOutsideLockException;
use malkusch\lock\mutex\PHPRedisMutex;
use malkusch\lock\mutex\PredisMutex;

$args = fx_args();
fx_setup_cap();
$P = $args['prefix'];

require_once 'Malkusch/Lock/autoload.php';
require_once 'Predis/autoload.php';

$phpredis = new \Redis();
if (!$phpredis->connect('127.0.0.1', $args['port'], 5.0, null, 0, 5.0)) {
    fx_fail("cannot connect to 127.0.0.1:{$args['port']}");
}
$predis = new \Predis\Client(['host' => '127.0.0.1', 'port' => $args['port'], 'timeout' => 5.0, 'read_write_timeout' => 5.0]);
$predis->connect();

$deb = fx_deb_version('php-malkusch-lock');
$base = [
    'library' => 'malkusch/lock',
    'package' => 'php-malkusch-lock',
    'version' => fx_upstream($deb),
    'debian_version' => $deb,
    'db' => 0,
    'type' => 'string',
    'kind' => 'mutex',
    'owner_meaning' => 'bin2hex(random_bytes(16)): 32 lowercase hex characters (RedisMutex::acquire), fresh per acquisition',
    'renewal' => null,
    'companions' => [],
];

$nameA = $P . 'payment-batch';
$nameB = $P . 'mailer';
$phpredis->del('lock_' . $nameA, 'lock_' . $nameB); // leftovers of a killed run expire anyway

$mutexA = new PHPRedisMutex([$phpredis], $nameA, 120); // SET lock_<name> <hex> NX EX 121
$mutexB = new PredisMutex([$predis], $nameB, 30);      // SET lock_<name> <hex> EX 31 NX

try {
    $mutexA->synchronized(function () use ($mutexB, $phpredis, $base, $nameA, $nameB) {
        fx_made($base + [
            'key' => 'lock_' . $nameA,
            'owner' => $phpredis->get('lock_' . $nameA),
            'lease_ms' => 121000,
            'client' => 'phpredis ' . phpversion('redis'),
            'api' => "(new PHPRedisMutex([\$redis], '$nameA', 120))->synchronized(fn)  (EX = timeout + 1)",
        ]);
        $mutexB->synchronized(function () use ($phpredis, $base, $nameB) {
            fx_made($base + [
                'key' => 'lock_' . $nameB,
                'owner' => $phpredis->get('lock_' . $nameB),
                'lease_ms' => 31000,
                'client' => 'predis ' . \Predis\Client::VERSION,
                'api' => "(new PredisMutex([\$predis], '$nameB', 30))->synchronized(fn)  (EX = timeout + 1)",
            ]);
            fx_ready_and_hold();
        });
    });
} catch (ExecutionOutsideLockException $e) {
    // Held longer than the timeout: the library reports it on unlock. Not a fixture failure.
}
exit(0);
