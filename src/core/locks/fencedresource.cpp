// FencedResource: fenced_write.lua, fenced_read.lua and a plain read.
#include "fencedresource.h"

FencedResource::WriteResult FencedResource::write(RedisConnection &connection, qint64 fence,
                                                  const QByteArray &value) const
{
    static const FaultHooks none;
    LockIo io(none, 0);
    return write(connection, io, fence, value);
}

FencedResource::WriteResult FencedResource::write(RedisConnection &connection, LockIo &io, qint64 fence,
                                                  const QByteArray &value) const
{
    WriteResult w;
    if ((w.error = LockIo::requireWritable(&connection)))
        return w;
    const int before = io.commands();
    const RedisResult r = io.script(connection, LuaScript::get(QStringLiteral("fenced_write")), {m_key},
                                    {QByteArray::number(fence), value});
    w.commands = io.commands() - before;
    w.reply = r.reply;
    w.error = r.error;
    if (!r.ok())
        return w;
    if (!r.reply.isArray() || r.reply.size() != 2) {
        w.error = {RedisError::Code::Protocol,
                   QStringLiteral("unexpected reply to fenced_write.lua: %1").arg(r.reply.toDisplayString())};
        return w;
    }
    w.accepted = r.reply.at(0).toInteger() == 1;
    w.highest = r.reply.at(1).toInteger();
    return w;
}

FencedResource::State FencedResource::read(RedisConnection &connection) const
{
    State s;
    const RedisResult r = connection.command({"HMGET", m_key, "value", "fence"});
    if (!r.ok()) {
        s.error = r.error;
        return s;
    }
    if (r.reply.size() == 2) {
        s.value = r.reply.at(0).bytes();
        bool ok = false;
        const qint64 fence = r.reply.at(1).toInteger(&ok);
        s.fence = ok ? fence : -1;
    }
    return s;
}

FencedResource::State FencedResource::readAs(RedisConnection &connection, qint64 fence) const
{
    State s;
    if ((s.error = LockIo::requireWritable(&connection)))
        return s;
    static const FaultHooks none;
    LockIo io(none, 0);
    const RedisResult r
        = io.script(connection, LuaScript::get(QStringLiteral("fenced_read")), {m_key}, {QByteArray::number(fence)});
    if (!r.ok()) {
        s.error = r.error;
        return s;
    }
    if (!r.reply.isArray() || r.reply.size() != 2) {
        s.error = {RedisError::Code::Protocol,
                   QStringLiteral("unexpected reply to fenced_read.lua: %1").arg(r.reply.toDisplayString())};
        return s;
    }
    s.value = r.reply.at(0).bytes();
    s.fence = r.reply.at(1).toInteger();
    return s;
}
