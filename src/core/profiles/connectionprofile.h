// A saved connection: a name, where and how to connect, how the password is kept (never in the profile
// itself), and how the window marks it (colour, production) and the inspector scans it (patterns, COUNT,
// a budget in commands per second).
#pragma once

#include "redis/connectionsettings.h"

#include <QJsonObject>
#include <QMetaType>
#include <QStringList>

struct ConnectionProfile
{
    enum class PasswordStorage {
        None, // the server needs no password
        Keychain, // in the operating system's keychain (Secret Service, KWallet), under keychainKey()
        Ask, // asked for at every connection: nothing is stored anywhere
    };

    QString id; // stable, hidden (a UUID): keychain entries are keyed by it, so renaming keeps the password
    QString name;
    ConnectionSettings settings; // settings.password is always empty in a stored profile
    PasswordStorage passwordStorage = PasswordStorage::None;
    QString color; // "#rrggbb" the window shows while connected; empty: none
    bool production = false; // a loud PRODUCTION badge while connected
    QStringList lockPatterns; // SCAN MATCH patterns for the inspector; empty: the inspector's defaults
    int scanCount = 64; // SCAN COUNT hint per page for the inspector (ScanOptions::kDefaultCount: why 64)
    int scanMaxOps = 0; // the inspector's budget in commands per second on this server; 0: none

    static constexpr int kMinScanCount = 10;
    static constexpr int kMaxScanCount = 100000;
    static constexpr int kMaxScanMaxOps = 10000000;

    // A new profile: fresh id, read-only, everything else default.
    static ConnectionProfile create(const QString &name);
    QString keychainKey() const { return QStringLiteral("profile/") + id; }
    bool needsPassword() const { return passwordStorage != PasswordStorage::None; }
    // Empty when usable, else what is wrong. The password itself is not checked: it is not part of it.
    QString validate() const;
    // "ops@redis.example:6380 (TLS, via ssh bastion)" for lists and tooltips.
    QString summary() const;

    // Everything except any password. Numbers and booleans are also accepted as strings (INI files).
    QJsonObject toJson() const;
    static ConnectionProfile fromJson(const QJsonObject &json, QString *error);

    static QString storageName(PasswordStorage storage);
    static PasswordStorage storageFromName(const QString &name, bool *ok = nullptr);

    bool operator==(const ConnectionProfile &other) const = default;
};

Q_DECLARE_METATYPE(ConnectionProfile)
