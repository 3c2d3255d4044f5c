// The passwords of connection profiles, for the GUI: read from the keychain when one is there, asked from the
// user otherwise (and whenever a saved entry cannot be read), and stored only in the keychain. Keeps the
// profile file and the keychain in step when profiles are saved, duplicated and deleted.
#pragma once

#include "passwordprompt.h"

#include "profiles/connectionprofile.h"

#include <QObject>

#include <functional>
#include <optional>

class ProfileStore;
class SecretStore;
class QWidget;

class ProfileCredentials : public QObject
{
    Q_OBJECT
public:
    ProfileCredentials(ProfileStore *store, SecretStore *secrets, QObject *parent = nullptr);

    ProfileStore *store() const { return m_store; }
    SecretStore *secrets() const { return m_secrets; }

    // The profile's settings with its password filled in, from the keychain or from a PasswordPrompt on
    // `window`. `done` runs later, with nullopt when the user cancelled.
    // `purpose` names the prompt's button (a Test must not say "Connect").
    void resolve(const ConnectionProfile &profile, QWidget *window,
                 std::function<void(std::optional<ConnectionSettings>)> done,
                 PasswordPrompt::Purpose purpose = PasswordPrompt::Purpose::Connect);

    struct Saved
    {
        std::optional<ConnectionProfile> profile; // as saved; nullopt when saving failed
        QString error; // why it was not saved
        QString notice; // something the user should know (e.g. no keychain: it will ask every time)
    };
    // Saves the profile, keeping `password` (empty: unchanged) the way the profile says: in the keychain, or
    // nowhere. When the keychain cannot take it, the profile is saved as "ask every time" and the notice
    // says why. Switching away from the keychain deletes the entry.
    void save(ConnectionProfile profile, const QString &password, std::function<void(const Saved &)> done);
    // A copy of the profile under a new id, its keychain password copied too (when it can be read).
    void duplicate(const ConnectionProfile &profile, std::function<void(const Saved &)> done);
    // Deletes the profile and its keychain entry.
    void remove(const ConnectionProfile &profile, std::function<void(const QString &error)> done);

signals:
    // A passing remark for the status bar ("could not save the password in the keychain: ...").
    void notice(const QString &message);

private:
    void ask(const ConnectionProfile &profile, const QString &reason, bool offerRemember, QWidget *window,
             std::function<void(std::optional<ConnectionSettings>)> done, PasswordPrompt::Purpose purpose);
    Saved saveNow(const ConnectionProfile &profile, const QString &notice);

    ProfileStore *m_store;
    SecretStore *m_secrets;
};
