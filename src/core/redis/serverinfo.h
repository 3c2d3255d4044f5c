// What the status bar and the CLI say about a connected server: version, mode, role, db, key count.
#pragma once

#include "rediserror.h"

#include <QMetaType>
#include <QString>

class RedisConnection;

struct ServerInfo
{
    QString endpoint;
    QString version; // "7.0.15"
    QString mode; // standalone | cluster | sentinel
    QString role; // master | replica; empty when the server would not say
    QString master; // a replica's master ("10.0.0.5:6379"), empty when unknown (INFO refused)
    QString masterLink; // a replica's link to its master: "up", "down", empty when unknown
    bool loading = false; // the server is still loading its data set (every key read answers LOADING)
    int db = 0;
    qint64 keys = -1; // DBSIZE of the selected db; -1 when unknown (sentinel, or denied by ACL)
    qint64 clientId = -1;
    double roundTripMs = -1; // one PING, measured when fetched
    bool readOnly = true;

    bool isValid() const { return !version.isEmpty(); }
    // "Redis 7.0.15 · standalone · db 0 · 12 keys"
    QString summary() const;

    // Asks the server with commands every read-only ACL user may run (HELLO, DBSIZE, PING), and INFO for a
    // replica's master and for loading when the user may run it.
    static ServerInfo fetch(RedisConnection &connection, RedisError *error = nullptr);
};

Q_DECLARE_METATYPE(ServerInfo)
