// SshTunnelPool: a map from (bastion, target) to the tunnel, holding it weakly so that the last user's
// release stops ssh.
#include "sshtunnelpool.h"

#include "sshtunnel.h"

#include <QHash>
#include <QMutex>

namespace SshTunnelPool {

namespace {

QString keyOf(const ConnectionSettings &s)
{
    const ConnectionSettings::Ssh &ssh = s.ssh;
    return QStringList {
        ssh.host, QString::number(ssh.port), ssh.user,    ssh.identityFile, ssh.jumpHosts, ssh.configFile,
        s.host,   QString::number(s.port),   s.socketPath}
        .join(QChar(0));
}

struct Pool
{
    QMutex mutex;
    QHash<QString, std::weak_ptr<SshTunnel>> tunnels;
};

Pool &pool()
{
    static Pool instance;
    return instance;
}

} // namespace

std::shared_ptr<SshTunnel> acquire(const ConnectionSettings &settings, const std::atomic_bool *interrupted,
                                   RedisError *error)
{
    Pool &p = pool();
    // Held while a tunnel starts, so that concurrent connections wait for one ssh rather than start several.
    QMutexLocker lock(&p.mutex);
    const QString key = keyOf(settings);
    if (std::shared_ptr<SshTunnel> existing = p.tunnels.value(key).lock(); existing && existing->isRunning())
        return existing;
    auto tunnel = std::make_shared<SshTunnel>(settings);
    *error = tunnel->start(settings.connectTimeoutMs, interrupted);
    if (*error)
        return nullptr;
    p.tunnels.insert(key, tunnel);
    return tunnel;
}

int openTunnels()
{
    Pool &p = pool();
    QMutexLocker lock(&p.mutex);
    int open = 0;
    for (auto it = p.tunnels.begin(); it != p.tunnels.end();) {
        if (it->expired()) {
            it = p.tunnels.erase(it);
        } else {
            ++open;
            ++it;
        }
    }
    return open;
}

} // namespace SshTunnelPool
