// ProfileStore: profiles as QSettings groups "profiles/<id>/...", mirroring their JSON form.
#include "profilestore.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const QString kGroup = QStringLiteral("profiles");
const QString kFormat = QStringLiteral("lockscope-profiles");

void writeObject(QSettings &settings, const QJsonObject &object)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject()) {
            settings.beginGroup(it.key());
            writeObject(settings, it->toObject());
            settings.endGroup();
        } else if (it->isArray()) {
            QStringList list;
            for (const QJsonValue &v : it->toArray())
                list << v.toString();
            settings.setValue(it.key(), list);
        } else {
            settings.setValue(it.key(), it->toVariant());
        }
    }
}

QJsonObject readObject(QSettings &settings)
{
    QJsonObject object;
    for (const QString &key : settings.childKeys()) {
        const QVariant value = settings.value(key);
        if (value.typeId() == QMetaType::QStringList)
            object.insert(key, QJsonArray::fromStringList(value.toStringList()));
        else
            object.insert(key, QJsonValue::fromVariant(value));
    }
    for (const QString &group : settings.childGroups()) {
        settings.beginGroup(group);
        object.insert(group, readObject(settings));
        settings.endGroup();
    }
    return object;
}

bool syncChecked(QSettings &settings, QString *error)
{
    settings.sync();
    if (settings.status() != QSettings::NoError) {
        *error = QStringLiteral("cannot write %1 (%2)")
                     .arg(settings.fileName(),
                          settings.status() == QSettings::AccessError
                              ? QStringLiteral("permission denied or disk full")
                              : QStringLiteral("the file is damaged"));
        return false;
    }
    return ProfileStore::makePrivate(settings.fileName(), error); // in case something else loosened it
}

} // namespace

ProfileStore::ProfileStore(const QString &filePath)
    : m_filePath(filePath)
{
}

QString ProfileStore::defaultFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
        + QStringLiteral("/LockScope/connections.conf");
}

bool ProfileStore::makePrivate(const QString &filePath, QString *error)
{
    const QFileInfo info(filePath);
    const QString dir = info.absolutePath();
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create the directory %1").arg(dir);
        return false;
    }
    if (::chmod(QFile::encodeName(dir).constData(), 0700) != 0) {
        *error
            = QStringLiteral("cannot make %1 private: %2").arg(dir, QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    // Create the file ourselves with mode 0600 so it is never readable by others, not even for a moment.
    const int fd = ::open(QFile::encodeName(filePath).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error
            = QStringLiteral("cannot create %1: %2").arg(filePath, QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    const bool ok = ::fchmod(fd, 0600) == 0;
    ::close(fd);
    if (!ok) {
        *error = QStringLiteral("cannot make %1 private: %2")
                     .arg(filePath, QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    return true;
}

QList<ConnectionProfile> ProfileStore::profiles() const
{
    m_warnings.clear();
    QList<ConnectionProfile> list;
    if (!QFileInfo::exists(m_filePath))
        return list;
    QSettings settings(m_filePath, QSettings::IniFormat);
    settings.beginGroup(kGroup);
    for (const QString &id : settings.childGroups()) {
        settings.beginGroup(id);
        QString error;
        ConnectionProfile p = ConnectionProfile::fromJson(readObject(settings), &error);
        settings.endGroup();
        p.id = id;
        if (!error.isEmpty()) {
            m_warnings << QStringLiteral("%1: skipped a profile (%2)").arg(m_filePath, error);
            continue;
        }
        list << p;
    }
    std::sort(list.begin(), list.end(), [](const ConnectionProfile &a, const ConnectionProfile &b) {
        return a.name.compare(b.name, Qt::CaseInsensitive) < 0;
    });
    return list;
}

std::optional<ConnectionProfile> ProfileStore::find(const QString &idOrName) const
{
    const QList<ConnectionProfile> all = profiles();
    for (const auto exact : {true, false}) {
        for (const ConnectionProfile &p : all) {
            if (p.id == idOrName && exact)
                return p;
            if (p.name.compare(idOrName, exact ? Qt::CaseSensitive : Qt::CaseInsensitive) == 0)
                return p;
        }
    }
    return std::nullopt;
}

QString ProfileStore::uniqueName(const QString &wanted, const QString &exceptId) const
{
    const QList<ConnectionProfile> all = profiles();
    const auto taken = [&](const QString &name) {
        return std::any_of(all.begin(), all.end(), [&](const ConnectionProfile &p) {
            return p.id != exceptId && p.name.compare(name, Qt::CaseInsensitive) == 0;
        });
    };
    QString name = wanted.trimmed();
    for (int n = 2; taken(name); ++n)
        name = QStringLiteral("%1 (%2)").arg(wanted.trimmed()).arg(n);
    return name;
}

bool ProfileStore::save(const ConnectionProfile &profile, QString *error)
{
    if (const QString problem = profile.validate(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (profile.id.isEmpty() || profile.id.contains(u'/')) {
        *error = QStringLiteral("profile '%1' has no valid id").arg(profile.name);
        return false;
    }
    if (uniqueName(profile.name, profile.id) != profile.name.trimmed()) {
        *error = QStringLiteral("a profile named '%1' already exists").arg(profile.name);
        return false;
    }
    if (!makePrivate(m_filePath, error))
        return false;
    ConnectionProfile stored = profile;
    stored.name = profile.name.trimmed();
    stored.settings.password.clear(); // belt and braces: toJson has no password field either
    QJsonObject json = stored.toJson();
    json.remove(QStringLiteral("id")); // the group name is the id
    QSettings settings(m_filePath, QSettings::IniFormat);
    settings.beginGroup(kGroup);
    settings.remove(stored.id); // no stale keys from an older version of the profile
    settings.beginGroup(stored.id);
    writeObject(settings, json);
    settings.endGroup();
    settings.endGroup();
    return syncChecked(settings, error);
}

bool ProfileStore::remove(const QString &id, QString *error)
{
    if (!makePrivate(m_filePath, error))
        return false;
    QSettings settings(m_filePath, QSettings::IniFormat);
    settings.beginGroup(kGroup);
    if (!settings.childGroups().contains(id)) {
        *error = QStringLiteral("no profile with id %1").arg(id);
        return false;
    }
    settings.remove(id);
    settings.endGroup();
    return syncChecked(settings, error);
}

std::optional<ConnectionProfile> ProfileStore::duplicate(const QString &id, QString *error)
{
    std::optional<ConnectionProfile> original = find(id);
    if (!original || original->id != id) {
        *error = QStringLiteral("no profile with id %1").arg(id);
        return std::nullopt;
    }
    ConnectionProfile copy = *original;
    copy.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    copy.name = uniqueName(original->name + QStringLiteral(" (copy)"));
    if (!save(copy, error))
        return std::nullopt;
    return copy;
}

QByteArray ProfileStore::exportJson(const QList<ConnectionProfile> &profiles)
{
    QJsonArray array;
    for (const ConnectionProfile &p : profiles) {
        QJsonObject json = p.toJson();
        json.remove(QStringLiteral("id")); // ids are local to one machine's keychain
        array.append(json);
    }
    const QJsonObject document {
        {QStringLiteral("format"), kFormat},
        {QStringLiteral("version"), 1},
        {QStringLiteral("profiles"), array},
    };
    return QJsonDocument(document).toJson(QJsonDocument::Indented);
}

QList<ConnectionProfile> ProfileStore::importJson(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (document.isNull()) {
        *error = QStringLiteral("not a JSON file: %1 at offset %2")
                     .arg(parseError.errorString())
                     .arg(parseError.offset);
        return {};
    }
    const QJsonObject root = document.object();
    if (root.value(QStringLiteral("format")).toString() != kFormat) {
        *error = QStringLiteral("not a LockScope profiles file (its \"format\" is not \"%1\")").arg(kFormat);
        return {};
    }
    if (root.value(QStringLiteral("version")).toInt() != 1) {
        *error = QStringLiteral("profiles file version %1 is not supported (this LockScope reads version 1)")
                     .arg(root.value(QStringLiteral("version")).toVariant().toString());
        return {};
    }
    QList<ConnectionProfile> incoming;
    for (const QJsonValue &value : root.value(QStringLiteral("profiles")).toArray()) {
        QString problem;
        ConnectionProfile p = ConnectionProfile::fromJson(value.toObject(), &problem);
        if (problem.isEmpty())
            problem = p.validate();
        if (!problem.isEmpty()) {
            *error = QStringLiteral("profile %1 in the file: %2").arg(incoming.size() + 1).arg(problem);
            return {};
        }
        if (p.passwordStorage == ConnectionProfile::PasswordStorage::Keychain)
            p.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
        incoming << p;
    }
    QList<ConnectionProfile> added;
    for (ConnectionProfile p : incoming) {
        p.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        p.name = uniqueName(p.name);
        if (!save(p, error))
            return added; // the ones saved so far stay; the error says which failed
        added << p;
    }
    return added;
}
