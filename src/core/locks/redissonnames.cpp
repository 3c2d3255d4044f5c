// RedissonNames: companion key and channel names as Redisson builds them.
#include "redissonnames.h"

namespace RedissonNames {

QByteArray prefixName(const QByteArray &prefix, const QByteArray &name)
{
    if (name.contains('{'))
        return prefix + ':' + name;
    return prefix + ":{" + name + '}';
}

QByteArray suffixName(const QByteArray &name, const QByteArray &suffix)
{
    if (name.contains('{'))
        return name + ':' + suffix;
    return '{' + name + "}:" + suffix;
}

QByteArray ownerField(const QByteArray &clientId, qint64 threadId)
{
    return clientId + ':' + QByteArray::number(threadId);
}

QByteArray writeField(const QByteArray &ownerField)
{
    return ownerField + ":write";
}

QByteArray lockChannel(const QByteArray &name)
{
    return prefixName("redisson_lock__channel", name);
}

QByteArray fairQueue(const QByteArray &name)
{
    return prefixName("redisson_lock_queue", name);
}

QByteArray fairTimeouts(const QByteArray &name)
{
    return prefixName("redisson_lock_timeout", name);
}

QByteArray fairWaiterChannel(const QByteArray &name, const QByteArray &ownerField)
{
    return lockChannel(name) + ':' + ownerField;
}

QByteArray tokenCounter(const QByteArray &name)
{
    return prefixName("redisson_lock_token", name);
}

QByteArray unlockLatch(const QByteArray &name, const QByteArray &requestId)
{
    return prefixName("redisson_unlock_latch", name) + ':' + requestId;
}

QByteArray rwChannel(const QByteArray &name)
{
    return prefixName("redisson_rwlock", name);
}

QByteArray rwTimeoutPrefix(const QByteArray &name, const QByteArray &ownerField)
{
    return suffixName(name, ownerField) + ":rwlock_timeout";
}

QByteArray rwKeyPrefix(const QByteArray &name)
{
    // Redisson splits the timeout prefix at ":<owner>" and keeps what is before it.
    return name.contains('{') ? name : '{' + name + '}';
}

} // namespace RedissonNames
