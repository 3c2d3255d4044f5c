// Asks Redis Sentinel where a master is: tries each sentinel in turn (SENTINEL GET-MASTER-ADDR-BY-NAME), and
// lists the masters they monitor (SENTINEL MASTERS) for the user to pick from. Read-only, synchronous.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"

#include <QList>
#include <QString>

class SentinelResolver
{
public:
    struct Master
    {
        QString name;
        QString host;
        int port = 0;
        QString flags; // "master", "master,s_down,o_down", …
        int replicas = -1;
        int otherSentinels = -1;
        int quorum = -1;
        QString endpoint() const;
    };

    // Where `settings.sentinel.masterName` is now, according to the first sentinel that knows it. The
    // sentinels are reached with the settings' TLS and timeouts, and without a password.
    static RedisError resolve(const ConnectionSettings &settings, QString *host, int *port);
    // The masters the first sentinel that answers monitors.
    static QList<Master> masters(const ConnectionSettings &settings, RedisError *error);
    // Settings that reach the sentinel at "host:port".
    static ConnectionSettings sentinelSettings(const ConnectionSettings &settings, const QString &node);
};
