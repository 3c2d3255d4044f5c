// CliServer: sandbox start-up and connection opening with the user-facing error text.
#include "cliserver.h"

#include "cliio.h"
#include "redis/sentinelresolver.h"

bool CliServer::open(const ConnectionOptions &options, QString *error)
{
    ConnectionOptions resolved = options;
    if (!ConnectionOptions::resolveProfilePassword(&resolved, error))
        return false;
    m_settings = resolved.settings;
    if (options.sandbox) {
        m_sandbox = std::make_unique<SandboxServer>();
        if (!m_sandbox->start()) {
            *error = QStringLiteral("Cannot start the sandbox server: %1").arg(m_sandbox->errorString());
            return false;
        }
        const ConnectionSettings sandbox = m_sandbox->connectionSettings();
        m_settings.host = sandbox.host;
        m_settings.port = sandbox.port;
        m_settings.readOnly = false; // the sandbox is ours
    }
    if (m_settings.sentinel.enabled() && m_settings.sentinel.masterName.isEmpty()) {
        RedisError e;
        const QList<SentinelResolver::Master> masters = SentinelResolver::masters(m_settings, &e);
        if (e) {
            *error = e.message();
            return false;
        }
        QStringList names;
        for (const SentinelResolver::Master &m : masters)
            names << QStringLiteral("%1 (%2, %3)").arg(m.name, m.endpoint(), m.flags);
        *error = names.isEmpty()
            ? QStringLiteral("the sentinels monitor no master")
            : QStringLiteral("give the master to follow with --master NAME; the sentinels "
                             "monitor: %1")
                  .arg(names.join(QStringLiteral(", ")));
        return false;
    }
    if (const QString warning = ConnectionOptions::securityWarning(m_settings); !warning.isEmpty())
        CliIo::err() << warning << "\n" << Qt::flush;
    m_connection = std::make_unique<RedisConnection>(m_settings);
    if (const RedisError e = m_connection->open()) {
        *error = e.message();
        return false;
    }
    return true;
}
