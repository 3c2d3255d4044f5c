// The server a CLI subcommand talks to: the one given by the connection options, or a private sandbox.
#pragma once

#include "connectionoptions.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"

#include <memory>

class CliServer
{
public:
    // Starts the sandbox when asked and opens the connection. False with `error` set (a full sentence).
    bool open(const ConnectionOptions &options, QString *error);

    RedisConnection &connection() { return *m_connection; }
    SandboxServer *sandbox() { return m_sandbox.get(); }
    const ConnectionSettings &settings() const { return m_settings; }

private:
    std::unique_ptr<SandboxServer> m_sandbox;
    std::unique_ptr<RedisConnection> m_connection;
    ConnectionSettings m_settings;
};
