// Shares SSH tunnels between the connections to one server: a simulation's many worker connections ride one
// `ssh -L` process, which ends when the last connection using it closes.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"

#include <atomic>
#include <memory>

class SshTunnel;

namespace SshTunnelPool {

// A running tunnel for `settings.ssh` to `settings`' Redis endpoint: the one already open, or a new one
// started within the connect timeout. Null with `error` set when it cannot be opened. Thread-safe.
std::shared_ptr<SshTunnel> acquire(const ConnectionSettings &settings, const std::atomic_bool *interrupted,
                                   RedisError *error);
// How many tunnels are open now (for tests and the log).
int openTunnels();

} // namespace SshTunnelPool
