// A real-library fixture driver (tests/libraries/drivers.json) running as a process: it connects to a
// server, makes locks through the library's own API, prints what it made, and holds them (its renewers
// running) until its standard input closes. Tests freeze it with SIGSTOP to play a stalled holder.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>

#include <memory>

struct FixtureDriver
{
    QString name;
    std::unique_ptr<QProcess> process;
    QList<QJsonObject> made; // its {"made": {...}} lines: key, library, lease_ms, renewal, …

    // Starts driver `name` of `librariesDir`/drivers.json against 127.0.0.1:`port`, its keys under `prefix`,
    // and waits for its {"ready": true}. Null with `error` set when it cannot start or never gets ready.
    static std::unique_ptr<FixtureDriver> start(const QString &librariesDir, const QString &name, int port,
                                                const QString &prefix, QString *error);
    // Closes its standard input (it exits without releasing anything), or kills it after a grace period.
    void stop();
};
