// Certificates for TLS tests, made fresh in a temporary directory with the openssl command: a CA, a server
// certificate for localhost/127.0.0.1, a client certificate, and a second CA (with its own client) that
// nothing trusts.
#pragma once

#include "redis/sandboxserver.h"

#include <QString>
#include <QTemporaryDir>

class TlsFixture
{
public:
    // Generates everything; false with errorString() when openssl is missing or fails.
    bool create();
    QString errorString() const { return m_error; }
    QString path(const QString &name) const { return m_dir.filePath(name); }

    QString caFile() const { return path(QStringLiteral("ca.crt")); }
    QString serverCert() const { return path(QStringLiteral("server.crt")); }
    QString serverKey() const { return path(QStringLiteral("server.key")); }
    QString clientCert() const { return path(QStringLiteral("client.crt")); }
    QString clientKey() const { return path(QStringLiteral("client.key")); }
    QString encryptedClientKey() const { return path(QStringLiteral("client-encrypted.key")); }
    QString otherCaFile() const { return path(QStringLiteral("other-ca.crt")); }
    QString otherClientCert() const { return path(QStringLiteral("other-client.crt")); }
    QString otherClientKey() const { return path(QStringLiteral("other-client.key")); }

    // Options for a TLS-only sandbox with these certificates; its own probe trusts our CA (and presents the
    // client certificate when `authClients`).
    SandboxServer::Options sandboxOptions(bool authClients = false) const;
    // Client settings that verify the server against our CA.
    ConnectionSettings::Tls clientTls(bool withClientCertificate = false) const;

private:
    bool openssl(const QStringList &arguments);
    bool makeCa(const QString &name, const QString &subject);
    bool makeLeaf(const QString &name, const QString &ca, const QString &subject, const QString &extensions);

    QTemporaryDir m_dir;
    QString m_error;
};
