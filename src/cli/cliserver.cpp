// CliServer: sandbox start-up and connection opening with the user-facing error text.
#include "cliserver.h"

#include "cliio.h"

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
    if (const QString warning = ConnectionOptions::securityWarning(m_settings); !warning.isEmpty())
        CliIo::err() << warning << "\n" << Qt::flush;
    m_connection = std::make_unique<RedisConnection>(m_settings);
    if (const RedisError e = m_connection->open()) {
        *error = e.message();
        return false;
    }
    return true;
}
