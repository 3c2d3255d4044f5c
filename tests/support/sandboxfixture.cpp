// SandboxFixture implementation.
#include "sandboxfixture.h"

#include "inspect/samplelocks.h"

SandboxServer::Options SandboxFixture::withKeyspaceEvents()
{
    Options options;
    options.configLines << QStringLiteral("notify-keyspace-events KEA");
    return options;
}

SandboxServer::Options SandboxFixture::withPassword(const QString &password)
{
    Options options;
    options.configLines << QStringLiteral("requirepass ") + password;
    return options;
}

bool SandboxFixture::startAndConnect()
{
    if (!start()) {
        m_setupError = QStringLiteral("the sandbox did not start: ") + errorString();
        return false;
    }
    m_admin = std::make_unique<RedisConnection>(connectionSettings());
    if (const RedisError error = m_admin->open()) {
        m_setupError = QStringLiteral("the admin connection did not open: ") + error.message();
        return false;
    }
    return true;
}

bool SandboxFixture::startFilled(int keys, const QByteArray &prefix)
{
    if (!startAndConnect())
        return false;
    if (!SampleLocks::fill(*m_admin, prefix, keys)) {
        m_setupError = QStringLiteral("filling the sandbox with %1 keys failed").arg(keys);
        return false;
    }
    return true;
}
