// The shipped client adapters (resources/clients/*/client.json, carried inside the library) and what it
// takes to run one: its files unpacked where a program can execute them, its npm modules installed on first
// use (saying so, never silently), its Debian packages checked, and the version of the library it finds.
#pragma once

#include "externalclient.h"

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <functional>

class ClientCatalog
{
public:
    struct Adapter
    {
        QString id; // "redis-py"
        QString title; // "redis-py Lock"
        QString library; // "redis-py"
        QString language;
        QString summary;
        QStringList command; // with ${dir} for the adapter's unpacked folder
        QString runtime; // the program that must be installed ("/usr/bin/python3", "node")
        QStringList debianPackages;
        QList<QPair<QString, QString>> npmPackages; // name, exact version
        QStringList versionCommand; // prints the library's version
        QJsonObject options; // name → {type, default, help}
    };

    struct Status
    {
        QString runtimePath; // empty: the runtime is not installed
        bool libraryInstalled = false; // npm modules unpacked / Debian packages present
        QString version; // the library's version as the version command prints it; empty when unknown
        QString problem; // what is missing, in a sentence with the command that fixes it
    };

    static const QList<Adapter> &all();
    static const Adapter *find(const QString &id);
    static QStringList ids();

    // Where adapters are unpacked and their npm modules installed: $LOCKSCOPE_CLIENTS_DIR, or the user's
    // data folder (~/.local/share/LockScope/clients).
    static QString clientsDir();
    // Whether `adapter` can run here, and the version of its library (runs its version command: slow).
    static Status status(const Adapter &adapter);
    // Makes `adapter` runnable and gives the command to start it: unpacks it, installs its npm modules if
    // they are missing (telling `say` before the download starts) and checks its Debian packages.
    static bool prepare(const Adapter &adapter, ExternalClient::Launch *launch, QString *error,
                        const std::function<void(const QString &)> &say = {});
    // The folder of `adapter`'s npm modules (NODE_PATH), empty when it has none.
    static QString nodeModulesDir(const Adapter &adapter);
};
