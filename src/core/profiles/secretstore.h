// Passwords in the operating system's keychain (Secret Service / GNOME Keyring, KWallet) through QtKeychain.
// Never a file: when no keychain is reachable, callers fall back to asking every time. Every operation
// finishes through its callback, with a Status that says what to do next.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

class SecretStore : public QObject
{
    Q_OBJECT
public:
    enum class Status {
        Ok,
        NotFound, // no entry under that key (deleted, or never stored on this machine)
        Unavailable, // no keychain service reachable (no Secret Service/KWallet, no D-Bus session)
        Failed, // the keychain refused or broke (locked, access denied, timed out)
    };
    struct Result
    {
        Status status = Status::Failed;
        QString secret; // only for a successful read
        QString error; // a sentence for the user when status is not Ok
        bool ok() const { return status == Status::Ok; }
    };
    using Callback = std::function<void(const Result &)>;

    explicit SecretStore(QObject *parent = nullptr, const QString &service = QStringLiteral("LockScope"));

    // Asynchronous: `done` runs later on this object's thread, unless `context` was destroyed meanwhile.
    void read(const QString &key, QObject *context, Callback done);
    void write(const QString &key, const QString &secret, QObject *context, Callback done);
    void remove(const QString &key, QObject *context, Callback done); // NotFound counts as Ok
    // Whether a keychain answers at all (a read of a key that does not exist).
    void probe(QObject *context, Callback done);

    // Blocking forms for the command line: run a local event loop for at most `timeoutMs`.
    Result readNow(const QString &key, int timeoutMs = 15000);
    Result writeNow(const QString &key, const QString &secret, int timeoutMs = 15000);
    Result removeNow(const QString &key, int timeoutMs = 15000);

    const QString &service() const { return m_service; }

private:
    Result waitFor(const std::function<void(Callback)> &start, int timeoutMs);

    QString m_service;
};
