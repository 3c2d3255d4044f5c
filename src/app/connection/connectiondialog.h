// The connection dialog: where a server is, how to log in, TLS, an SSH tunnel, read-only (default) or not;
// with a live "Test". In profile mode it also edits a saved profile (name, colour, production, inspector
// settings, where the password is kept).
#pragma once

#include "profiles/connectionprofile.h"
#include "redis/connectionsettings.h"
#include "redis/sentinelresolver.h"

#include <QDialog>

#include <memory>

class ProfileCredentials;
class RedisSession;
class QLineEdit;
class QPushButton;
namespace Ui {
class ConnectionDialog;
}

class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Mode { Connect, EditProfile };

    explicit ConnectionDialog(QWidget *parent = nullptr, Mode mode = Mode::Connect);
    ~ConnectionDialog() override;

    Mode mode() const { return m_mode; }
    void setSettings(const ConnectionSettings &settings);
    ConnectionSettings settings() const;
    // Profile mode: the profile being edited (its password, if any, is not shown: it stays where it is).
    void setProfile(const ConnectionProfile &profile);
    ConnectionProfile profile() const;
    // What was typed in the password field; empty means "unchanged" in profile mode.
    QString typedPassword() const;
    // Lets "Test" use a profile's saved password (or ask for it) when none was typed.
    void setCredentials(ProfileCredentials *credentials) { m_credentials = credentials; }
    // Profile editing: no usable system keychain (`why`) — "In the system keychain" is not offered, and a
    // profile set to it asks every time instead.
    void setKeychainUnavailable(const QString &why);

    // The line under the form: validation problems and test results.
    QString statusText() const;
    QPushButton *testButton() const { return m_testButton; }

private:
    void updateState();
    void runTest();
    void testWith(const ConnectionSettings &settings);
    void browse(QLineEdit *edit, const QString &title, const QString &filter);
    void listMasters();
    void showMasters(const QList<SentinelResolver::Master> &masters, const RedisError &error);
    // "a:1, b:2" → ["a:1", "b:2"]
    static QStringList sentinelNodes(const QString &text);
    void setColor(const QString &color);
    QString problem() const;

    std::unique_ptr<Ui::ConnectionDialog> m_ui;
    Mode m_mode;
    QPushButton *m_testButton = nullptr;
    RedisSession *m_tester = nullptr;
    ProfileCredentials *m_credentials = nullptr;
    QString m_profileId;
    QString m_color;
    bool m_hasSavedPassword = false;
    bool m_listing = false; // the sentinels are being asked for their masters
};
