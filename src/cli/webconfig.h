// `serve`'s TLS and basic auth, configured as Prometheus's own exporters configure them (exporter-toolkit's
// web configuration file): tls_server_config (cert_file, key_file, client_ca_file, client_auth_type,
// min_version) and basic_auth_users (user: bcrypt hash). The file is read as JSON, which is YAML too, so the
// same file serves `promtool check web-config` and Prometheus's other exporters. Passwords are checked
// against their bcrypt hashes with the system's libcrypt (libxcrypt), never stored.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QSslConfiguration>
#include <QString>

#include <optional>

class WebConfig
{
public:
    // Reads `path`. Empty on error, with `error` saying what is wrong and where.
    static std::optional<WebConfig> load(const QString &path, QString *error);

    bool tlsEnabled() const { return m_tls; }
    const QSslConfiguration &sslConfiguration() const { return m_ssl; }
    bool authRequired() const { return !m_users.isEmpty(); }
    // Whether an Authorization header ("Basic base64(user:password)") names a user whose password matches its
    // hash. A match is remembered (as a digest of the header, not the password) so a scrape every few
    // seconds does not pay for bcrypt each time.
    bool authorize(const QByteArray &authorization) const;

    // `password` checked against a bcrypt hash ($2a$, $2b$ or $2y$).
    static bool verifyBcrypt(const QByteArray &password, const QByteArray &hash);
    // A bcrypt hash ($2b$, cost 10) of `password` for basic_auth_users; empty with `error` on failure.
    static QByteArray hashBcrypt(const QByteArray &password, QString *error);

private:
    bool m_tls = false;
    QSslConfiguration m_ssl;
    QHash<QString, QByteArray> m_users; // user → bcrypt hash
    mutable QHash<QByteArray, bool> m_accepted; // digests of accepted headers, bounded
};
