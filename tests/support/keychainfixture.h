// A private keychain for tests: a session D-Bus and an unlocked GNOME Keyring in a temporary directory,
// so tests use a real Secret Service without ever touching the user's own keychain.
#pragma once

#include "redis/childprocess.h"

#include <QString>
#include <QTemporaryDir>

class KeychainFixture
{
public:
    ~KeychainFixture();
    // Starts dbus-daemon and gnome-keyring-daemon and points this process (and its children) at them.
    // Call before anything uses D-Bus. False with errorString() when they are not installed or fail.
    bool start();
    QString errorString() const { return m_error; }
    // Where the keyring keeps its (encrypted) files, to check that no secret is stored in clear.
    QString keyringDirectory() const;

    // Points D-Bus at an address where nothing listens: for tests of the no-keychain path, and so that no
    // test can reach the user's real keychain. Call before anything uses D-Bus.
    static void disableKeychainForThisProcess();

private:
    bool waitForFile(const QString &path, ChildProcess &process, const QString &what);

    QTemporaryDir m_dir;
    ChildProcess m_dbus;
    ChildProcess m_keyring;
    QString m_error;
};
