// The outcome of one command: a reply, or an error (transport, guard or server error reply).
#pragma once

#include "rediserror.h"
#include "redisreply.h"

struct RedisResult
{
    RedisReply reply; // also holds the raw error reply when the server answered with one
    RedisError error;

    bool ok() const { return error.isNone(); }

    static RedisResult failure(const RedisError &error) { return {RedisReply(), error}; }
};
