// Connection ▸ Profiles: the saved connections. Create, edit, duplicate, delete and test them, import and
// export them without secrets, and connect to one.
#pragma once

#include "profiles/connectionprofile.h"

#include <QDialog>

#include <memory>
#include <optional>

class ConnectionDialog;
class ProfileCredentials;
class RedisSession;
class QListWidgetItem;
namespace Ui {
class ProfilesDialog;
}

class ProfilesDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ProfilesDialog(ProfileCredentials *credentials, QWidget *parent = nullptr);
    ~ProfilesDialog() override;

    void reload(const QString &selectId = {});
    void selectProfile(const QString &id);
    std::optional<ConnectionProfile> selectedProfile() const;
    QList<ConnectionProfile> selectedProfiles() const;
    int profileCount() const;

    // The actions behind the buttons (tests call them directly; file dialogs are skipped by the *To/From
    // forms).
    void newProfile();
    void editSelected();
    void duplicateSelected();
    void deleteSelected(); // asks for confirmation first
    void testSelected();
    bool exportTo(const QString &path, QString *error);
    bool importFrom(const QString &path, QString *error);

    QString statusText() const; // the test/result line
    QString keychainText() const;
    QString detailsText() const;
    ConnectionDialog *editor() const { return m_editor; } // the profile editor while it is open

signals:
    void connectRequested(const ConnectionProfile &profile);

private:
    void updateButtons();
    void showDetails();
    void openEditor(const ConnectionProfile &profile, bool isNew);
    void setStatus(const QString &text, const QString &color = {});
    void exportSelected();
    void importFile();

    std::unique_ptr<Ui::ProfilesDialog> m_ui;
    ProfileCredentials *m_credentials;
    RedisSession *m_tester = nullptr;
    ConnectionDialog *m_editor = nullptr;
    QString m_noKeychain; // why there is no usable keychain (empty: there is one, or not known yet)
    QString m_testing; // name of the profile under test
};
