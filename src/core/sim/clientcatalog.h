// The shipped client adapters (resources/clients/*/client.json, carried inside the library) and what it
// takes to run one: its files unpacked where a program can execute them, its npm modules installed and its
// JVM or Go program built on first use (saying so, never silently), its Debian packages checked, and the
// version of the library it finds.
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
        QString runtime; // the program that must be installed ("/usr/bin/python3", "node", "java")
        QString runtimeHint; // how to install it ("sudo apt-get install openjdk-17-jre-headless"), if known
        QStringList debianPackages;
        QList<QPair<QString, QString>> npmPackages; // name, exact version
        // Pinned by the adapter's own pom.xml / go.sum; listed here to be shown.
        QList<QPair<QString, QString>> mavenArtifacts; // groupId:artifactId, exact version
        QList<QPair<QString, QString>> goModules; // module path, exact version ("v4.18.1")
        // A program built from the adapter's sources on first use (a JVM jar, a Go binary).
        struct Build
        {
            QStringList command; // run in the adapter's folder, ${dir} expanded
            QList<QPair<QString, QString>> tools; // programs the build needs, and how to install each
            QStringList inputs; // files and folders (relative to the adapter's folder) it reads
            QString creates; // what it makes (relative), which the command line runs
            QString source; // where its libraries come from ("Maven Central")
            bool isSet() const { return !command.isEmpty(); }
        } build;
        QStringList versionCommand; // prints the library's version
        QJsonObject options; // name → {type, default, help}
    };

    struct Status
    {
        QString runtimePath; // empty: the runtime is not installed
        bool libraryInstalled = false; // npm modules unpacked / Debian packages present / program built
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
    // they are missing and builds its program if it is not built (telling `say` before the download
    // starts), and checks its Debian packages.
    static bool prepare(const Adapter &adapter, ExternalClient::Launch *launch, QString *error,
                        const std::function<void(const QString &)> &say = {});
    // The folder of `adapter`'s npm modules (NODE_PATH), empty when it has none.
    static QString nodeModulesDir(const Adapter &adapter);
    // The exact version the adapter pins of its library (npm, Maven or Go), empty when it pins none.
    static QString pinnedVersion(const Adapter &adapter);
};
