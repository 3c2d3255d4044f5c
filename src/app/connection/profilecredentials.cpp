// ProfileCredentials: keychain first, then the user; never a file.
#include "profilecredentials.h"

#include "passwordprompt.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"

#include <QPointer>

using Storage = ConnectionProfile::PasswordStorage;

ProfileCredentials::ProfileCredentials(ProfileStore *store, SecretStore *secrets, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_secrets(secrets)
{
}

void ProfileCredentials::resolve(const ConnectionProfile &profile, QWidget *window,
                                 std::function<void(std::optional<ConnectionSettings>)> done,
                                 PasswordPrompt::Purpose purpose)
{
    if (!profile.needsPassword()) {
        done(profile.settings);
        return;
    }
    if (profile.passwordStorage == Storage::Ask) {
        ask(profile, tr("This profile asks for the password at every connection."), false, window,
            std::move(done), purpose);
        return;
    }
    QPointer<QWidget> guard(window);
    m_secrets->read(profile.keychainKey(), this, [this, profile, guard, done, purpose](const SecretStore::Result &r) {
        if (r.ok() && !r.secret.isEmpty()) {
            ConnectionSettings s = profile.settings;
            s.password = r.secret;
            done(s);
            return;
        }
        // Missing, locked or no keychain at all: ask (and offer to save it again if a keychain answered).
        const QString why = r.ok() ? tr("The keychain entry is empty.")
                                   : tr("The saved password cannot be read: %1.").arg(r.error);
        ask(profile, why, r.status == SecretStore::Status::NotFound || r.ok(), guard, done, purpose);
    });
}

void ProfileCredentials::ask(const ConnectionProfile &profile, const QString &reason, bool offerRemember,
                             QWidget *window, std::function<void(std::optional<ConnectionSettings>)> done,
                             PasswordPrompt::Purpose purpose)
{
    auto *prompt = new PasswordPrompt(profile, reason, offerRemember, window, purpose);
    prompt->setAttribute(Qt::WA_DeleteOnClose);
    connect(prompt, &QDialog::finished, this, [this, prompt, profile, done](int result) {
        if (result != QDialog::Accepted) {
            done(std::nullopt);
            return;
        }
        ConnectionSettings s = profile.settings;
        s.password = prompt->password();
        if (prompt->remember()) {
            m_secrets->write(profile.keychainKey(), s.password, this, [this](const SecretStore::Result &r) {
                if (!r.ok())
                    emit notice(tr("Could not save the password in the keychain: %1").arg(r.error));
            });
        }
        done(s);
    });
    prompt->open(); // window-modal, without a nested event loop
}

ProfileCredentials::Saved ProfileCredentials::saveNow(const ConnectionProfile &profile, const QString &notice)
{
    Saved saved;
    QString error;
    if (m_store->save(profile, &error)) {
        saved.profile = profile;
        saved.profile->settings.password.clear();
    } else {
        saved.error = error;
    }
    saved.notice = notice;
    if (!notice.isEmpty())
        emit this->notice(notice);
    return saved;
}

void ProfileCredentials::save(ConnectionProfile profile, const QString &password,
                              std::function<void(const Saved &)> done)
{
    profile.settings.password.clear();
    if (const QString problem = profile.validate(); !problem.isEmpty()) {
        done({std::nullopt, problem, {}});
        return;
    }
    if (profile.passwordStorage != Storage::Keychain) {
        // Nothing may stay behind in the keychain for a profile that no longer keeps it there.
        m_secrets->remove(profile.keychainKey(), this, [](const SecretStore::Result &) {});
        done(saveNow(profile, {}));
        return;
    }
    if (password.isEmpty()) { // unchanged
        done(saveNow(profile, {}));
        return;
    }
    m_secrets->write(profile.keychainKey(), password, this,
                     [this, profile, done](const SecretStore::Result &r) mutable {
                         QString notice;
                         if (!r.ok()) {
                             profile.passwordStorage = Storage::Ask;
                             notice = tr("The password could not be saved in the keychain (%1). Profile '%2' "
                                         "will ask for it at "
                                         "every connection; nothing was written to disk.")
                                          .arg(r.error, profile.name);
                         }
                         done(saveNow(profile, notice));
                     });
}

void ProfileCredentials::duplicate(const ConnectionProfile &profile, std::function<void(const Saved &)> done)
{
    QString error;
    const std::optional<ConnectionProfile> copy = m_store->duplicate(profile.id, &error);
    if (!copy) {
        done({std::nullopt, error, {}});
        return;
    }
    if (copy->passwordStorage != Storage::Keychain) {
        done({copy, {}, {}});
        return;
    }
    m_secrets->read(profile.keychainKey(), this, [this, copy, done](const SecretStore::Result &r) {
        if (!r.ok()) { // nothing to copy: the copy will ask and can remember then
            done({copy, {}, {}});
            return;
        }
        m_secrets->write(copy->keychainKey(), r.secret, this, [copy, done](const SecretStore::Result &) {
            done({copy, {}, {}});
        });
    });
}

void ProfileCredentials::remove(const ConnectionProfile &profile, std::function<void(const QString &)> done)
{
    QString error;
    if (!m_store->remove(profile.id, &error)) {
        done(error);
        return;
    }
    m_secrets->remove(profile.keychainKey(), this, [done](const SecretStore::Result &) { done({}); });
}
