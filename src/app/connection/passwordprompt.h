// Asks for the password of one connection: names the server and user, says why it asks (the profile asks
// every time, no keychain, or the saved entry cannot be read), and can offer to remember it in the keychain.
#pragma once

#include <QDialog>

class QCheckBox;
class QLineEdit;
struct ConnectionProfile;

class PasswordPrompt : public QDialog
{
    Q_OBJECT
public:
    // What the password is for: the button says so ("Connect", or "Test" from a profile's Test button).
    enum class Purpose { Connect, Test };
    PasswordPrompt(const ConnectionProfile &profile, const QString &reason, bool offerRemember,
                   QWidget *parent = nullptr, Purpose purpose = Purpose::Connect);

    QString password() const;
    bool remember() const;
    QLineEdit *passwordEdit() const { return m_password; }
    QCheckBox *rememberCheck() const { return m_remember; }

private:
    QLineEdit *m_password = nullptr;
    QCheckBox *m_remember = nullptr;
};
