// ClientCatalog: reads the manifests from ":/clients", unpacks the adapters into the clients folder (under a
// lock file, so two LockScopes starting at once do not write over each other), installs npm modules with
// npm's own command, builds JVM and Go adapters with their own build tools (Maven, go build: the libraries
// come by exact version from the pom.xml and go.sum shipped with them), and asks dpkg about Debian packages.
#include "clientcatalog.h"

#include "redis/childprocess.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLockFile>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace {

constexpr auto kResourceRoot = ":/clients";

QStringList strings(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &v : value.toArray())
        list << v.toString();
    return list;
}

QList<QPair<QString, QString>> pairs(const QJsonValue &value)
{
    QList<QPair<QString, QString>> list;
    const QJsonObject o = value.toObject();
    for (auto p = o.constBegin(); p != o.constEnd(); ++p)
        list.append({p.key(), p.value().toString()});
    return list;
}

QList<ClientCatalog::Adapter> load()
{
    QList<ClientCatalog::Adapter> adapters;
    QDirIterator it(QString::fromLatin1(kResourceRoot), {QStringLiteral("client.json")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        ClientCatalog::Adapter a;
        a.id = o.value(QLatin1String("id")).toString();
        if (a.id.isEmpty())
            continue; // the shipped manifests are checked by tests; a broken one is not offered
        a.title = o.value(QLatin1String("title")).toString(a.id);
        a.library = o.value(QLatin1String("library")).toString(a.id);
        a.language = o.value(QLatin1String("language")).toString();
        a.summary = o.value(QLatin1String("summary")).toString();
        a.command = strings(o.value(QLatin1String("command")));
        a.runtime = o.value(QLatin1String("runtime")).toString();
        a.runtimeHint = o.value(QLatin1String("runtime_hint")).toString();
        const QJsonObject needs = o.value(QLatin1String("requires")).toObject();
        a.debianPackages = strings(needs.value(QLatin1String("debian")));
        a.npmPackages = pairs(needs.value(QLatin1String("npm")));
        a.mavenArtifacts = pairs(needs.value(QLatin1String("maven")));
        a.goModules = pairs(needs.value(QLatin1String("go")));
        const QJsonObject build = o.value(QLatin1String("build")).toObject();
        a.build.command = strings(build.value(QLatin1String("command")));
        a.build.tools = pairs(build.value(QLatin1String("tools")));
        a.build.inputs = strings(build.value(QLatin1String("inputs")));
        a.build.creates = build.value(QLatin1String("creates")).toString();
        a.build.source = build.value(QLatin1String("source")).toString();
        a.versionCommand = strings(o.value(QLatin1String("version_command")));
        a.options = o.value(QLatin1String("options")).toObject();
        adapters.append(a);
    }
    std::sort(adapters.begin(), adapters.end(),
              [](const ClientCatalog::Adapter &a, const ClientCatalog::Adapter &b) { return a.id < b.id; });
    return adapters;
}

QString adapterDir(const ClientCatalog::Adapter &a)
{
    return ClientCatalog::clientsDir() + u'/' + a.id;
}

QStringList substituted(const QStringList &argv, const ClientCatalog::Adapter &a)
{
    QStringList out;
    for (const QString &arg : argv)
        out << QString(arg).replace(QLatin1String("${dir}"), adapterDir(a));
    return out;
}

QString findProgram(const QString &program)
{
    if (program.contains(u'/'))
        return QFileInfo(program).isExecutable() ? program : QString();
    return QStandardPaths::findExecutable(program);
}

// Copies every shipped adapter file that is missing or different into the clients folder.
bool unpack(QString *error)
{
    const QString root = ClientCatalog::clientsDir();
    QDirIterator it(QString::fromLatin1(kResourceRoot), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = root + source.mid(int(qstrlen(kResourceRoot)));
        QFile in(source);
        if (!in.open(QIODevice::ReadOnly))
            continue;
        const QByteArray content = in.readAll();
        QFile existing(target);
        if (existing.open(QIODevice::ReadOnly) && existing.readAll() == content)
            continue;
        existing.close();
        QDir().mkpath(QFileInfo(target).absolutePath());
        QFile out(target);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(content) != content.size()) {
            *error = QStringLiteral("cannot unpack the client adapters into %1: %2")
                         .arg(root, out.errorString());
            return false;
        }
        out.setPermissions(in.permissions() | QFile::ReadOwner | QFile::WriteOwner);
    }
    return true;
}

bool npmInstalled(const ClientCatalog::Adapter &a)
{
    const QString modules = ClientCatalog::nodeModulesDir(a);
    for (const auto &[name, version] : a.npmPackages) {
        QFile f(modules + u'/' + name + QStringLiteral("/package.json"));
        if (!f.open(QIODevice::ReadOnly))
            return false;
        if (QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String("version")).toString()
            != version)
            return false;
    }
    return true;
}

// How runToEnd() runs a program, beyond its arguments.
struct RunOptions
{
    QStringList environment; // NAME=VALUE, on top of ours
    bool separateErrors = false; // standard error into RunResult::errors instead of mixed into output
    bool inOurDirectory = false; // in our working directory rather than an empty temporary one
    QString workingDirectory; // this one, when given
};

// What a program run to its end printed, and how it ended.
struct RunResult
{
    bool finished = false; // false when it did not start, or did not end in time (it was killed then)
    int exitCode = -1; // -1 unless it exited on its own
    QByteArray output; // standard output, and standard error too unless kept apart
    QByteArray errors; // standard error, when kept apart
};

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Runs `program` (a full path) to its end, or kills it after `timeoutMs`.
// Through ChildProcess, not QProcess: this runs on a simulation's own thread, and QProcess starts children
// with a clone() that ThreadSanitizer cannot follow from there (its child aborts); ChildProcess forks.
RunResult runToEnd(const QString &program, const QStringList &arguments, int timeoutMs,
                   const RunOptions &options = {})
{
    RunResult result;
    QTemporaryDir dir; // holds what it prints
    if (!dir.isValid() || program.isEmpty())
        return result;
    const QString log = dir.filePath(QStringLiteral("output.log"));
    const QString output = options.separateErrors ? dir.filePath(QStringLiteral("stdout.log")) : QString();
    ChildProcess child;
    const QString workingDirectory = !options.workingDirectory.isEmpty() ? options.workingDirectory
        : options.inOurDirectory                                         ? QString()
                                                                         : dir.path();
    if (!child.start(program, arguments, workingDirectory, log, options.environment, output))
        return result;
    result.finished = child.waitForExit(timeoutMs);
    if (!result.finished)
        child.kill();
    result.exitCode = child.exitCode();
    result.output = readAll(options.separateErrors ? output : log);
    if (options.separateErrors)
        result.errors = readAll(log);
    return result;
}

QStringList missingDebianPackages(const ClientCatalog::Adapter &a)
{
    QStringList missing;
    const QString dpkgQuery = findProgram(QStringLiteral("dpkg-query"));
    for (const QString &package : a.debianPackages) {
        const RunResult status
            = runToEnd(dpkgQuery, {QStringLiteral("-W"), QStringLiteral("-f=${Status}"), package}, 10000);
        if (!status.finished || !status.output.contains("install ok installed"))
            missing << package;
    }
    return missing;
}

constexpr auto kBuiltStamp = "/.lockscope-built";

// Whether the adapter's program is built from the sources unpacked now: what it makes is there, and no input
// changed since the last build that worked (unpack() rewrites only files whose content changed).
bool isBuilt(const ClientCatalog::Adapter &a)
{
    const QString dir = adapterDir(a);
    const QFileInfo stamp(dir + QLatin1String(kBuiltStamp));
    if (!stamp.exists() || !QFileInfo::exists(dir + u'/' + a.build.creates))
        return false;
    const QDateTime builtAt = stamp.lastModified();
    for (const QString &input : a.build.inputs) {
        const QFileInfo info(QDir::cleanPath(dir + u'/' + input));
        if (!info.exists() || info.lastModified() > builtAt)
            return false;
        QDirIterator it(info.filePath(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            if (it.fileInfo().lastModified() > builtAt)
                return false;
        }
    }
    return true;
}

// The build's tools that are not installed, each with how to install it.
QStringList missingTools(const ClientCatalog::Adapter &a)
{
    QStringList missing;
    for (const auto &[tool, hint] : a.build.tools) {
        if (findProgram(tool).isEmpty())
            missing << (hint.isEmpty() ? tool : QStringLiteral("%1 (%2)").arg(tool, hint));
    }
    return missing;
}

QString librariesText(const ClientCatalog::Adapter &a)
{
    QStringList list;
    for (const auto &[name, version] : a.mavenArtifacts + a.goModules)
        list << name + u' ' + version;
    return list.join(QStringLiteral(", "));
}

// Builds the adapter's program in its unpacked folder (the caller holds the unpack lock).
bool build(const ClientCatalog::Adapter &a, QString *error, const std::function<void(const QString &)> &say)
{
    const QStringList missing = missingTools(a);
    if (!missing.isEmpty()) {
        *error = QStringLiteral("the %1 adapter is built on first use and needs %2")
                     .arg(a.id, missing.join(QStringLiteral(" and ")));
        return false;
    }
    if (say)
        say(QStringLiteral("Building the %1 adapter in %2 (first use): %3 from %4…")
                .arg(a.id, adapterDir(a), librariesText(a), a.build.source));
    const QStringList argv = substituted(a.build.command, a);
    RunOptions options;
    options.workingDirectory = adapterDir(a);
    QFile::remove(adapterDir(a) + QLatin1String(kBuiltStamp));
    const RunResult built = runToEnd(findProgram(argv.first()), argv.mid(1), 15 * 60 * 1000, options);
    const bool made = QFileInfo::exists(adapterDir(a) + u'/' + a.build.creates);
    if (!built.finished || built.exitCode != 0 || !made) {
        *error = QStringLiteral("the %1 adapter could not be built (%2%3): %4")
                     .arg(a.id, argv.join(u' '),
                          built.finished ? QStringLiteral(", exit status %1").arg(built.exitCode)
                                         : QStringLiteral(", did not finish in 15 minutes"),
                          QString::fromUtf8(built.output).trimmed().right(1200));
        return false;
    }
    QFile stamp(adapterDir(a) + QLatin1String(kBuiltStamp));
    if (!stamp.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(stamp.fileName(), stamp.errorString());
        return false;
    }
    stamp.write(librariesText(a).toUtf8() + '\n');
    return true;
}

// What the adapter's programs need on top of our environment (NAME=VALUE).
QStringList environmentFor(const ClientCatalog::Adapter &a)
{
    if (a.npmPackages.isEmpty())
        return {};
    return {QStringLiteral("NODE_PATH=") + ClientCatalog::nodeModulesDir(a)};
}

} // namespace

const QList<ClientCatalog::Adapter> &ClientCatalog::all()
{
    static const QList<Adapter> adapters = load();
    return adapters;
}

const ClientCatalog::Adapter *ClientCatalog::find(const QString &id)
{
    for (const Adapter &a : all()) {
        if (a.id == id)
            return &a;
    }
    return nullptr;
}

QStringList ClientCatalog::ids()
{
    QStringList list;
    for (const Adapter &a : all())
        list << a.id;
    return list;
}

QString ClientCatalog::clientsDir()
{
    const QString fromEnvironment = qEnvironmentVariable("LOCKSCOPE_CLIENTS_DIR");
    if (!fromEnvironment.isEmpty())
        return QDir(fromEnvironment).absolutePath();
    // One folder for the GUI and the CLI, whatever each executable's application name.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/LockScope/clients");
}

QString ClientCatalog::nodeModulesDir(const Adapter &adapter)
{
    return adapter.npmPackages.isEmpty() ? QString() : adapterDir(adapter) + QStringLiteral("/node_modules");
}

QString ClientCatalog::pinnedVersion(const Adapter &adapter)
{
    // The library by its package name (npm), its artifactId (Maven: group:artifact) or a segment of its
    // module path (Go: github.com/go-redsync/redsync/v4); Go's "v" is not part of the version.
    const QString &library = adapter.library;
    for (const auto &[name, version] : adapter.npmPackages + adapter.mavenArtifacts + adapter.goModules) {
        if (name == library || name.endsWith(u':' + library) || name.contains(u'/' + library + u'/')
            || name.endsWith(u'/' + library))
            return version.startsWith(u'v') ? version.mid(1) : version;
    }
    return QString();
}

ClientCatalog::Status ClientCatalog::status(const Adapter &adapter)
{
    Status s;
    s.runtimePath = findProgram(adapter.runtime);
    if (s.runtimePath.isEmpty()) {
        const QString hint
            = adapter.runtimeHint.isEmpty() ? QString() : QStringLiteral(": ") + adapter.runtimeHint;
        s.problem = QStringLiteral("%1 is not installed (the %2 adapter runs on it)%3")
                        .arg(adapter.runtime, adapter.id, hint);
        return s;
    }
    const QStringList missing = missingDebianPackages(adapter);
    if (!missing.isEmpty()) {
        s.problem = QStringLiteral("needs Debian's %1: sudo apt-get install %1").arg(missing.join(u' '));
        return s;
    }
    if (!adapter.npmPackages.isEmpty() && !npmInstalled(adapter)) {
        QStringList packages;
        for (const auto &[name, version] : adapter.npmPackages)
            packages << name + u'@' + version;
        s.problem = QStringLiteral("%1 will be installed from the npm registry on first use")
                        .arg(packages.join(QStringLiteral(", ")));
        return s;
    }
    QString error;
    if (adapter.build.isSet()) {
        if (!unpack(&error)) {
            s.problem = error;
            return s;
        }
        if (!isBuilt(adapter)) {
            const QStringList missing = missingTools(adapter);
            s.problem = missing.isEmpty()
                ? QStringLiteral("%1 will be downloaded from %2 and the adapter built on first use")
                      .arg(librariesText(adapter), adapter.build.source)
                : QStringLiteral("it cannot be built here without %1")
                      .arg(missing.join(QStringLiteral(" and ")));
            return s;
        }
    }
    s.libraryInstalled = true;
    if (adapter.versionCommand.isEmpty() || !unpack(&error))
        return s;
    const QStringList argv = substituted(adapter.versionCommand, adapter);
    RunOptions options;
    options.environment = environmentFor(adapter);
    options.separateErrors = true;
    options.inOurDirectory = true; // as before: `python3 -c` imports from there first
    const RunResult version = runToEnd(findProgram(argv.first()), argv.mid(1), 10000, options);
    if (version.finished && version.exitCode == 0)
        s.version = QString::fromUtf8(version.output).trimmed().section(u'\n', 0, 0);
    else
        s.problem = QStringLiteral("its version command failed: %1")
                        .arg(QString::fromUtf8(version.errors).trimmed().left(300));
    return s;
}

bool ClientCatalog::prepare(const Adapter &adapter, ExternalClient::Launch *launch, QString *error,
                            const std::function<void(const QString &)> &say)
{
    if (findProgram(adapter.runtime).isEmpty()) {
        const QString hint
            = adapter.runtimeHint.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(adapter.runtimeHint);
        *error = QStringLiteral("the %1 adapter needs %2, which is not installed%3")
                     .arg(adapter.id, adapter.runtime, hint);
        return false;
    }
    const QStringList missing = missingDebianPackages(adapter);
    if (!missing.isEmpty()) {
        *error = QStringLiteral("the %1 adapter needs Debian's %2: sudo apt-get install %2")
                     .arg(adapter.id, missing.join(u' '));
        return false;
    }
    QDir().mkpath(clientsDir());
    QLockFile lock(clientsDir() + QStringLiteral("/.unpack.lock"));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(10 * 60 * 1000)) {
        *error
            = QStringLiteral("another LockScope has held %1 for 10 minutes (installing?)").arg(clientsDir());
        return false;
    }
    if (!unpack(error))
        return false;
    if (!adapter.npmPackages.isEmpty() && !npmInstalled(adapter)) {
        const QString npm = findProgram(QStringLiteral("npm"));
        if (npm.isEmpty()) {
            *error
                = QStringLiteral("the %1 adapter needs npm to install its library (sudo apt-get install npm)")
                      .arg(adapter.id);
            return false;
        }
        QStringList packages;
        for (const auto &[name, version] : adapter.npmPackages)
            packages << name + u'@' + version;
        if (say)
            say(QStringLiteral("Installing %1 from the npm registry into %2 for the %3 adapter (first use)…")
                    .arg(packages.join(QStringLiteral(", ")), adapterDir(adapter), adapter.id));
        const RunResult said = runToEnd(npm,
                                        QStringList {QStringLiteral("install"), QStringLiteral("--prefix"),
                                                     adapterDir(adapter), QStringLiteral("--no-audit"),
                                                     QStringLiteral("--no-fund"), QStringLiteral("--no-save"),
                                                     QStringLiteral("--loglevel=error")}
                                            + packages,
                                        10 * 60 * 1000);
        // What npm left is what counts (its exit code would say no more than the packages' own versions).
        if (!said.finished || !npmInstalled(adapter)) {
            *error = QStringLiteral("npm could not install %1 for the %2 adapter: %3")
                         .arg(packages.join(QStringLiteral(", ")), adapter.id,
                              QString::fromUtf8(said.output).trimmed().right(600));
            return false;
        }
    }
    if (adapter.build.isSet() && !isBuilt(adapter) && !build(adapter, error, say))
        return false;
    launch->argv = substituted(adapter.command, adapter);
    launch->workingDirectory = adapterDir(adapter);
    launch->environment = environmentFor(adapter);
    return true;
}
