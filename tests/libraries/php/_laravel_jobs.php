<?php
// Job classes for laravel.php, written as `php artisan make:job` would (namespace App\Jobs).
declare(strict_types=1);

namespace App\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldBeUnique;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;

/** A job as `php artisan make:job` writes it, made unique (uniqueFor defaults to 0). */
class ProcessPodcast implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public $podcastId;

    public function __construct(string $podcastId)
    {
        $this->podcastId = $podcastId;
    }

    public function uniqueId()
    {
        return $this->podcastId;
    }

    public function handle()
    {
    }
}

/** Unique job with a lease: public $uniqueFor = 120 seconds. */
class RebuildSearchIndex implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public $uniqueFor = 120;
    public $uniqueId;

    public function __construct(string $id)
    {
        $this->uniqueId = $id;
    }

    public function handle()
    {
    }
}

/** A job whose middleware is Illuminate\Queue\Middleware\WithoutOverlapping. */
class SyncOrder implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function handle()
    {
    }
}
