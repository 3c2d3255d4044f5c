// The saved connection profiles: one INI file (QSettings) readable by its owner only, holding no password.
// Also their export and import as JSON, for sharing a team's connection list without secrets.
#pragma once

#include "connectionprofile.h"

#include <QList>
#include <QString>

#include <optional>

class ProfileStore
{
public:
    explicit ProfileStore(const QString &filePath = defaultFilePath());

    // <config dir>/LockScope/connections.conf (XDG_CONFIG_HOME is honoured).
    static QString defaultFilePath();
    const QString &filePath() const { return m_filePath; }

    // Sorted by name (case-insensitively). Entries that cannot be read are skipped and reported by
    // warnings().
    QList<ConnectionProfile> profiles() const;
    QStringList warnings() const { return m_warnings; }
    // By id, else by exact name, else by case-insensitive name.
    std::optional<ConnectionProfile> find(const QString &idOrName) const;
    // Inserts or replaces (by id). The password in profile.settings is never written. Names must be unique.
    bool save(const ConnectionProfile &profile, QString *error);
    bool remove(const QString &id, QString *error);
    // A copy named "<name> (copy)" under a new id, saved. Its password storage is kept, but its keychain
    // entry is not copied here: the caller copies the secret if it wants to.
    std::optional<ConnectionProfile> duplicate(const QString &id, QString *error);
    // `wanted`, or "wanted (2)", "wanted (3)"... whichever is free (ignoring the profile `exceptId`).
    QString uniqueName(const QString &wanted, const QString &exceptId = {}) const;

    // {"format": "lockscope-profiles", "version": 1, "profiles": [...]}, without any password.
    static QByteArray exportJson(const QList<ConnectionProfile> &profiles);
    // Adds the profiles of an exported document under new ids, with unique names. Keychain entries do not
    // travel, so imported profiles that had one ask for the password instead. Nothing is added on error.
    QList<ConnectionProfile> importJson(const QByteArray &json, QString *error);

    // Makes `filePath`'s directory owner-only (0700) and the file owner-only (0600), creating it empty if
    // needed, before anything is written into it.
    static bool makePrivate(const QString &filePath, QString *error);

private:
    mutable QStringList m_warnings;
    QString m_filePath;
};
