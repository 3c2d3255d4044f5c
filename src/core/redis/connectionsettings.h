// Where and how to reach one Redis server. Read-only unless the user explicitly says otherwise.
#pragma once

#include <QMetaType>
#include <QString>

struct ConnectionSettings
{
    QString host = QStringLiteral("127.0.0.1");
    int port = 6379;
    QString socketPath; // when set, a Unix socket is used instead of host:port
    QString user; // ACL user; empty means the default user
    QString password; // held in memory only; never written to disk or logs
    int db = 0;
    int connectTimeoutMs = 3000;
    int commandTimeoutMs = 3000;
    bool readOnly = true;
    QString clientName = QStringLiteral("lockscope");

    bool usesSocket() const { return !socketPath.isEmpty(); }
    // "127.0.0.1:6379" or "unix:/path/to/sock"; never includes credentials.
    QString endpoint() const;
    // An empty string when the settings can be used, else what is wrong and what is allowed.
    QString validate() const;

    bool operator==(const ConnectionSettings &other) const = default;
};

Q_DECLARE_METATYPE(ConnectionSettings)
