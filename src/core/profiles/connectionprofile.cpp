// ConnectionProfile: JSON form (shared by the settings file and export files) and validation.
#include "connectionprofile.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QUuid>
#include <QVariant>

namespace {

// Values read back from an INI file are strings; from a JSON export they are typed. Accept both.
int intValue(const QJsonObject &o, const char *key, int fallback)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return fallback;
    bool ok = false;
    const int i = v.toVariant().toInt(&ok);
    return ok ? i : fallback;
}

bool boolValue(const QJsonObject &o, const char *key, bool fallback)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isBool())
        return v.toBool();
    if (v.isString())
        return v.toString() == QLatin1String("true") || v.toString() == QLatin1String("1");
    if (v.isDouble())
        return v.toInt() != 0;
    return fallback;
}

QString stringValue(const QJsonObject &o, const char *key, const QString &fallback = {})
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isString() ? v.toString() : fallback;
}

QStringList listValue(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isArray()) {
        QStringList list;
        for (const QJsonValue &item : v.toArray())
            list << item.toString();
        return list;
    }
    return v.toVariant().toStringList(); // a QSettings list comes back as a QStringList variant
}

} // namespace

ConnectionProfile ConnectionProfile::create(const QString &name)
{
    ConnectionProfile p;
    p.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    p.name = name;
    return p;
}

QString ConnectionProfile::storageName(PasswordStorage storage)
{
    switch (storage) {
    case PasswordStorage::None:
        return QStringLiteral("none");
    case PasswordStorage::Keychain:
        return QStringLiteral("keychain");
    case PasswordStorage::Ask:
        return QStringLiteral("ask");
    }
    return QStringLiteral("none");
}

ConnectionProfile::PasswordStorage ConnectionProfile::storageFromName(const QString &name, bool *ok)
{
    if (ok)
        *ok = true;
    if (name == QLatin1String("keychain"))
        return PasswordStorage::Keychain;
    if (name == QLatin1String("ask"))
        return PasswordStorage::Ask;
    if (ok)
        *ok = name.isEmpty() || name == QLatin1String("none");
    return PasswordStorage::None;
}

QString ConnectionProfile::validate() const
{
    if (name.trimmed().isEmpty())
        return QStringLiteral("give the profile a name");
    if (!color.isEmpty() && !QRegularExpression(QStringLiteral("^#[0-9a-fA-F]{6}$")).match(color).hasMatch())
        return QStringLiteral("colour '%1' is not of the form #rrggbb").arg(color);
    if (scanCount < kMinScanCount || scanCount > kMaxScanCount)
        return QStringLiteral("SCAN COUNT %1 is out of range: use %2 to %3")
            .arg(scanCount)
            .arg(kMinScanCount)
            .arg(kMaxScanCount);
    if (scanMaxOps < 0 || scanMaxOps > kMaxScanMaxOps)
        return QStringLiteral("a budget of %1 commands per second is out of range: use 0 (none) to %2")
            .arg(scanMaxOps)
            .arg(kMaxScanMaxOps);
    for (const QString &pattern : lockPatterns) {
        if (pattern.trimmed().isEmpty())
            return QStringLiteral("lock patterns must not be empty lines");
    }
    if (!settings.user.isEmpty() && passwordStorage == PasswordStorage::None)
        return QStringLiteral("user '%1' needs a password: remember it in the keychain or ask every time")
            .arg(settings.user);
    // The stored settings carry no password: validate them as if it had been given.
    ConnectionSettings withPassword = settings;
    if (needsPassword() && withPassword.password.isEmpty())
        withPassword.password = QStringLiteral("-");
    return withPassword.validate();
}

QString ConnectionProfile::summary() const
{
    const QString who = settings.user.isEmpty() ? QString() : settings.user + u'@';
    return who + settings.describe();
}

QJsonObject ConnectionProfile::toJson() const
{
    const ConnectionSettings &s = settings;
    QJsonObject tls {
        {QStringLiteral("enabled"), s.tls.enabled},       {QStringLiteral("caFile"), s.tls.caFile},
        {QStringLiteral("certFile"), s.tls.certFile},     {QStringLiteral("keyFile"), s.tls.keyFile},
        {QStringLiteral("serverName"), s.tls.serverName}, {QStringLiteral("verifyPeer"), s.tls.verifyPeer},
    };
    QJsonObject ssh {
        {QStringLiteral("enabled"), s.ssh.enabled},
        {QStringLiteral("host"), s.ssh.host},
        {QStringLiteral("port"), s.ssh.port},
        {QStringLiteral("user"), s.ssh.user},
        {QStringLiteral("identityFile"), s.ssh.identityFile},
        {QStringLiteral("jumpHosts"), s.ssh.jumpHosts},
        {QStringLiteral("configFile"), s.ssh.configFile},
    };
    return {
        {QStringLiteral("id"), id},
        {QStringLiteral("name"), name},
        {QStringLiteral("host"), s.host},
        {QStringLiteral("port"), s.port},
        {QStringLiteral("socket"), s.socketPath},
        {QStringLiteral("user"), s.user},
        {QStringLiteral("db"), s.db},
        {QStringLiteral("connectTimeoutMs"), s.connectTimeoutMs},
        {QStringLiteral("commandTimeoutMs"), s.commandTimeoutMs},
        {QStringLiteral("readOnly"), s.readOnly},
        {QStringLiteral("passwordStorage"), storageName(passwordStorage)}, // never the password itself
        {QStringLiteral("color"), color},
        {QStringLiteral("production"), production},
        {QStringLiteral("lockPatterns"), QJsonArray::fromStringList(lockPatterns)},
        {QStringLiteral("scanCount"), scanCount},
        {QStringLiteral("scanMaxOps"), scanMaxOps},
        {QStringLiteral("tls"), tls},
        {QStringLiteral("ssh"), ssh},
        {QStringLiteral("cluster"), s.cluster},
        {QStringLiteral("sentinel"),
         QJsonObject {{QStringLiteral("nodes"), QJsonArray::fromStringList(s.sentinel.nodes)},
                      {QStringLiteral("master"), s.sentinel.masterName}}},
    };
}

ConnectionProfile ConnectionProfile::fromJson(const QJsonObject &o, QString *error)
{
    ConnectionProfile p;
    ConnectionSettings &s = p.settings;
    p.id = stringValue(o, "id");
    p.name = stringValue(o, "name");
    s.host = stringValue(o, "host", s.host);
    s.port = intValue(o, "port", s.port);
    s.socketPath = stringValue(o, "socket");
    s.user = stringValue(o, "user");
    s.db = intValue(o, "db", 0);
    s.connectTimeoutMs = intValue(o, "connectTimeoutMs", s.connectTimeoutMs);
    s.commandTimeoutMs = intValue(o, "commandTimeoutMs", s.commandTimeoutMs);
    s.readOnly = boolValue(o, "readOnly", true); // a profile that does not say is read-only
    bool storageOk = true;
    p.passwordStorage = storageFromName(stringValue(o, "passwordStorage"), &storageOk);
    p.color = stringValue(o, "color");
    p.production = boolValue(o, "production", false);
    p.lockPatterns = listValue(o, "lockPatterns");
    p.scanCount = intValue(o, "scanCount", p.scanCount);
    p.scanMaxOps = intValue(o, "scanMaxOps", p.scanMaxOps);
    const QJsonObject tls = o.value(QLatin1String("tls")).toObject();
    s.tls.enabled = boolValue(tls, "enabled", false);
    s.tls.caFile = stringValue(tls, "caFile");
    s.tls.certFile = stringValue(tls, "certFile");
    s.tls.keyFile = stringValue(tls, "keyFile");
    s.tls.serverName = stringValue(tls, "serverName");
    s.tls.verifyPeer = boolValue(tls, "verifyPeer", true);
    const QJsonObject ssh = o.value(QLatin1String("ssh")).toObject();
    s.ssh.enabled = boolValue(ssh, "enabled", false);
    s.ssh.host = stringValue(ssh, "host");
    s.ssh.port = intValue(ssh, "port", 0);
    s.ssh.user = stringValue(ssh, "user");
    s.ssh.identityFile = stringValue(ssh, "identityFile");
    s.ssh.jumpHosts = stringValue(ssh, "jumpHosts");
    s.ssh.configFile = stringValue(ssh, "configFile");
    s.cluster = boolValue(o, "cluster", false);
    const QJsonObject sentinel = o.value(QLatin1String("sentinel")).toObject();
    s.sentinel.nodes = listValue(sentinel, "nodes");
    s.sentinel.masterName = stringValue(sentinel, "master");
    if (error) {
        error->clear();
        if (p.name.trimmed().isEmpty())
            *error = QStringLiteral("a profile has no name");
        else if (!storageOk)
            *error = QStringLiteral("profile '%1': unknown password storage '%2' (none, keychain or ask)")
                         .arg(p.name, stringValue(o, "passwordStorage"));
    }
    return p;
}
