// WebConfig: unknown keys are refused, as exporter-toolkit refuses them, so a typo never silently turns TLS
// or auth off.
#include "webconfig.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSslCertificate>
#include <QSslKey>

#include <crypt.h>

#include <memory>

namespace {

bool constantTimeEqual(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return diff == 0;
}

QString readFile(const QString &what, const QString &path, QByteArray *out)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("%1 %2: %3").arg(what, path, f.errorString());
    *out = f.readAll();
    return {};
}

// tls_server_config into `ssl`. Empty when good, else why not.
QString readTls(const QJsonObject &tls, QSslConfiguration *ssl)
{
    static const QStringList known {"cert_file", "key_file", "client_ca_file", "client_auth_type",
                                    "min_version"};
    for (const QString &key : tls.keys()) {
        if (!known.contains(key))
            return QStringLiteral("tls_server_config: unknown key '%1' (known: %2)")
                .arg(key, known.join(QStringLiteral(", ")));
    }
    const QString certFile = tls.value(QLatin1String("cert_file")).toString();
    const QString keyFile = tls.value(QLatin1String("key_file")).toString();
    if (certFile.isEmpty() || keyFile.isEmpty())
        return QStringLiteral("tls_server_config needs cert_file and key_file");
    QByteArray pem;
    if (QString e = readFile(QStringLiteral("cert_file"), certFile, &pem); !e.isEmpty())
        return e;
    const QList<QSslCertificate> chain = QSslCertificate::fromData(pem, QSsl::Pem);
    if (chain.isEmpty())
        return QStringLiteral("cert_file %1: no PEM certificate in it").arg(certFile);
    if (QString e = readFile(QStringLiteral("key_file"), keyFile, &pem); !e.isEmpty())
        return e;
    QSslKey key(pem, QSsl::Rsa, QSsl::Pem);
    if (key.isNull())
        key = QSslKey(pem, QSsl::Ec, QSsl::Pem);
    if (key.isNull())
        return QStringLiteral("key_file %1: no unencrypted PEM RSA or EC private key in it").arg(keyFile);
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    c.setLocalCertificateChain(chain);
    c.setPrivateKey(key);
    const QString minVersion = tls.value(QLatin1String("min_version")).toString(QStringLiteral("TLS12"));
    if (minVersion == QLatin1String("TLS12"))
        c.setProtocol(QSsl::TlsV1_2OrLater);
    else if (minVersion == QLatin1String("TLS13"))
        c.setProtocol(QSsl::TlsV1_3OrLater);
    else
        return QStringLiteral("tls_server_config: min_version %1: give TLS12 or TLS13").arg(minVersion);
    const QString clientAuth
        = tls.value(QLatin1String("client_auth_type")).toString(QStringLiteral("NoClientCert"));
    const QString caFile = tls.value(QLatin1String("client_ca_file")).toString();
    if (clientAuth == QLatin1String("NoClientCert")) {
        c.setPeerVerifyMode(QSslSocket::VerifyNone);
    } else if (clientAuth == QLatin1String("RequireAndVerifyClientCert")
               || clientAuth == QLatin1String("VerifyClientCertIfGiven")) {
        if (caFile.isEmpty())
            return QStringLiteral("tls_server_config: client_auth_type %1 needs client_ca_file")
                .arg(clientAuth);
        if (QString e = readFile(QStringLiteral("client_ca_file"), caFile, &pem); !e.isEmpty())
            return e;
        const QList<QSslCertificate> cas = QSslCertificate::fromData(pem, QSsl::Pem);
        if (cas.isEmpty())
            return QStringLiteral("client_ca_file %1: no PEM certificate in it").arg(caFile);
        c.setCaCertificates(cas);
        c.setPeerVerifyMode(clientAuth == QLatin1String("RequireAndVerifyClientCert")
                                ? QSslSocket::VerifyPeer
                                : QSslSocket::QueryPeer);
    } else {
        return QStringLiteral("tls_server_config: client_auth_type %1: give NoClientCert, "
                              "VerifyClientCertIfGiven or RequireAndVerifyClientCert")
            .arg(clientAuth);
    }
    *ssl = c;
    return {};
}

} // namespace

std::optional<WebConfig> WebConfig::load(const QString &path, QString *error)
{
    QByteArray text;
    if (QString e = readFile(QStringLiteral("--web-config"), path, &text); !e.isEmpty()) {
        *error = e;
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (!doc.isObject()) {
        *error = QStringLiteral("--web-config %1: not a JSON object (%2 at byte %3); write it as JSON, which "
                                "Prometheus's tools read as YAML too")
                     .arg(path, parseError.errorString())
                     .arg(parseError.offset);
        return std::nullopt;
    }
    WebConfig config;
    const QJsonObject root = doc.object();
    for (const QString &key : root.keys()) {
        if (key != QLatin1String("tls_server_config") && key != QLatin1String("basic_auth_users")) {
            *error = QStringLiteral("--web-config %1: unknown key '%2' (known: tls_server_config, "
                                    "basic_auth_users)")
                         .arg(path, key);
            return std::nullopt;
        }
    }
    if (root.contains(QLatin1String("tls_server_config"))) {
        const QString e = readTls(root.value(QLatin1String("tls_server_config")).toObject(), &config.m_ssl);
        if (!e.isEmpty()) {
            *error = QStringLiteral("--web-config %1: %2").arg(path, e);
            return std::nullopt;
        }
        config.m_tls = true;
    }
    const QJsonObject users = root.value(QLatin1String("basic_auth_users")).toObject();
    for (auto it = users.constBegin(); it != users.constEnd(); ++it) {
        const QByteArray hash = it.value().toString().toUtf8();
        if (!hash.startsWith("$2a$") && !hash.startsWith("$2b$") && !hash.startsWith("$2y$")) {
            *error = QStringLiteral("--web-config %1: basic_auth_users: the password of '%2' is not a bcrypt "
                                    "hash ($2b$…; make one with `lockscope-cli serve --hash-password`)")
                         .arg(path, it.key());
            return std::nullopt;
        }
        config.m_users.insert(it.key(), hash);
    }
    return config;
}

bool WebConfig::authorize(const QByteArray &authorization) const
{
    if (!authRequired())
        return true;
    if (!authorization.startsWith("Basic "))
        return false;
    const QByteArray digest = QCryptographicHash::hash(authorization, QCryptographicHash::Sha256);
    if (m_accepted.contains(digest))
        return true;
    const QByteArray decoded = QByteArray::fromBase64(authorization.mid(6).trimmed());
    const qsizetype colon = decoded.indexOf(':');
    if (colon < 0)
        return false;
    const auto it = m_users.constFind(QString::fromUtf8(decoded.left(colon)));
    if (it == m_users.constEnd() || !verifyBcrypt(decoded.mid(colon + 1), *it))
        return false;
    if (m_accepted.size() >= 64)
        m_accepted.clear();
    m_accepted.insert(digest, true);
    return true;
}

bool WebConfig::verifyBcrypt(const QByteArray &password, const QByteArray &hash)
{
    auto data = std::make_unique<crypt_data>();
    const char *result
        = crypt_rn(password.constData(), hash.constData(), data.get(), int(sizeof(crypt_data)));
    // crypt_rn gives NULL (or a "*"-led failure token) for a hash it cannot use.
    if (!result || result[0] == '*')
        return false;
    return constantTimeEqual(QByteArray(result), hash);
}

QByteArray WebConfig::hashBcrypt(const QByteArray &password, QString *error)
{
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    // NULL random bytes: libxcrypt takes them from the operating system.
    if (!crypt_gensalt_rn("$2b$", 10, nullptr, 0, setting, int(sizeof setting))) {
        *error = QStringLiteral("this system's libcrypt cannot make bcrypt salts");
        return {};
    }
    auto data = std::make_unique<crypt_data>();
    const char *result = crypt_rn(password.constData(), setting, data.get(), int(sizeof(crypt_data)));
    if (!result || result[0] == '*') {
        *error = QStringLiteral("this system's libcrypt cannot make bcrypt hashes");
        return {};
    }
    return QByteArray(result);
}
