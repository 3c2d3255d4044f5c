<?php
// Shared helpers for the LockScope PHP library fixtures (Debian 12 packages).
// Contract: <driver> --port N [--prefix P]; prints {"made":..}/{"not_lock":..} lines,
// then {"ready":true}; holds until stdin EOF or SIGTERM, then exits 0.
declare(strict_types=1);

set_include_path('/usr/share/php' . PATH_SEPARATOR . get_include_path());
error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);

const FX_SETUP_CAP_S = 20;

function fx_fail(string $msg): void
{
    fwrite(STDERR, 'fixture error: ' . str_replace("\n", ' ', $msg) . "\n");
    exit(1);
}

set_exception_handler(function (Throwable $e) {
    fx_fail(get_class($e) . ': ' . $e->getMessage() . ' at ' . basename($e->getFile()) . ':' . $e->getLine());
});
set_error_handler(function (int $no, string $str, string $file, int $line) {
    if (!(error_reporting() & $no)) {
        return false;
    }
    throw new ErrorException($str, 0, $no, $file, $line);
});

/** @return array{port:int,prefix:string,opts:array<string,string>} */
function fx_args(array $extraDefaults = []): array
{
    global $argv;
    $port = null;
    $prefix = 'fx:';
    $opts = $extraDefaults;
    for ($i = 1; $i < count($argv); $i++) {
        $a = $argv[$i];
        if ($a === '--port' && isset($argv[$i + 1])) {
            $port = $argv[++$i];
        } elseif ($a === '--prefix' && isset($argv[$i + 1])) {
            $prefix = $argv[++$i];
        } elseif (strncmp($a, '--', 2) === 0 && array_key_exists(substr($a, 2), $extraDefaults) && isset($argv[$i + 1])) {
            $opts[substr($a, 2)] = $argv[++$i];
        } else {
            fx_fail("unknown or incomplete argument '$a'; usage: --port N [--prefix P]");
        }
    }
    if ($port === null || !ctype_digit((string) $port) || (int) $port < 1 || (int) $port > 65535) {
        fx_fail('--port N (1..65535) is required');
    }
    return ['port' => (int) $port, 'prefix' => $prefix, 'opts' => $opts];
}

/** Arms the overall setup cap: if setup is not done in FX_SETUP_CAP_S seconds, fail. */
function fx_setup_cap(): void
{
    pcntl_async_signals(true);
    pcntl_signal(SIGALRM, function () {
        fx_fail('setup took longer than ' . FX_SETUP_CAP_S . ' s');
    });
    pcntl_alarm(FX_SETUP_CAP_S);
}

/** Debian package version, e.g. "5.4.53+dfsg-0+deb12u1". */
function fx_deb_version(string $package): string
{
    $out = @shell_exec('dpkg-query -W -f=\'${Version}\' ' . escapeshellarg($package) . ' 2>/dev/null');
    return is_string($out) && $out !== '' ? trim($out) : 'unknown';
}

/** Upstream part of a Debian version: "2:5.4.53+dfsg-0+deb12u1" -> "5.4.53". */
function fx_upstream(string $debVersion): string
{
    $v = preg_replace('/^\d+:/', '', $debVersion);
    $v = preg_replace('/-[^-]*$/', '', $v);
    return preg_replace('/\+(dfsg|ds).*$/', '', $v);
}

function fx_emit(array $obj): void
{
    fwrite(STDOUT, json_encode($obj, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
    fflush(STDOUT);
}

function fx_made(array $made): void
{
    $made += ['renewal' => null, 'companions' => []];
    fx_emit(['made' => $made]);
}

function fx_not_lock(string $key, string $why, array $extra = []): void
{
    fx_emit(['not_lock' => ['key' => $key, 'why' => $why] + $extra]);
}

/**
 * Prints {"ready":true} and blocks until stdin reaches EOF or SIGTERM/SIGINT arrives.
 * Returns (does not exit) so that callers holding locks inside library callbacks can unwind.
 * $tick is called about every 200 ms while holding (used for renewals, if any).
 */
function fx_ready_and_hold(?callable $tick = null): void
{
    pcntl_alarm(0);
    $stop = false;
    pcntl_async_signals(true);
    pcntl_signal(SIGTERM, function () use (&$stop) { $stop = true; });
    pcntl_signal(SIGINT, function () use (&$stop) { $stop = true; });
    fx_emit(['ready' => true]);
    $stdin = STDIN;
    stream_set_blocking($stdin, false);
    while (!$stop) {
        $r = [$stdin];
        $w = $e = null;
        $n = @stream_select($r, $w, $e, 0, 200000);
        if ($n === false) {
            continue; // interrupted by a signal
        }
        if ($n > 0) {
            $chunk = fread($stdin, 8192);
            if (($chunk === '' || $chunk === false) && feof($stdin)) {
                break;
            }
        }
        if ($tick !== null) {
            $tick();
        }
    }
}
