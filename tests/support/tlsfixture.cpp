// TlsFixture: openssl req/x509 calls with EC P-256 keys (fast to generate).
#include "tlsfixture.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>

bool TlsFixture::openssl(const QStringList &arguments)
{
    const QString program = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (program.isEmpty()) {
        m_error = QStringLiteral("the openssl command is not installed (Debian: apt-get install openssl)");
        return false;
    }
    QProcess process;
    process.setWorkingDirectory(m_dir.path());
    process.start(program, arguments);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        m_error = QStringLiteral("openssl %1 failed: %2")
                      .arg(arguments.join(u' '), QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

bool TlsFixture::makeCa(const QString &name, const QString &subject)
{
    return openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", name + ".key", "-out", name + ".crt", "-days", "2", "-subj", subject});
}

bool TlsFixture::makeLeaf(const QString &name, const QString &ca, const QString &subject,
                          const QString &extensions)
{
    QFile ext(path(name + QStringLiteral(".ext")));
    if (!ext.open(QIODevice::WriteOnly)) {
        m_error = ext.errorString();
        return false;
    }
    ext.write(extensions.toUtf8());
    ext.close();
    return openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                    name + ".key", "-out", name + ".csr", "-subj", subject})
        && openssl({"x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                    "-CAcreateserial", "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext"});
}

bool TlsFixture::create()
{
    if (!m_dir.isValid()) {
        m_error = m_dir.errorString();
        return false;
    }
    const QString server
        = QStringLiteral("basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n"
                         "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    const QString client = QStringLiteral("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
    return makeCa(QStringLiteral("ca"), QStringLiteral("/CN=LockScope Test CA"))
        && makeCa(QStringLiteral("other-ca"), QStringLiteral("/CN=Somebody Else CA"))
        && makeLeaf(QStringLiteral("server"), QStringLiteral("ca"), QStringLiteral("/CN=localhost"), server)
        && makeLeaf(QStringLiteral("client"), QStringLiteral("ca"), QStringLiteral("/CN=lockscope-client"),
                    client)
        && makeLeaf(QStringLiteral("other-client"), QStringLiteral("other-ca"),
                    QStringLiteral("/CN=stranger"), client)
        && openssl({"pkey", "-in", "client.key", "-aes256", "-passout", "pass:secret", "-out",
                    "client-encrypted.key"});
}

ConnectionSettings::Tls TlsFixture::clientTls(bool withClientCertificate) const
{
    ConnectionSettings::Tls tls;
    tls.enabled = true;
    tls.caFile = caFile();
    if (withClientCertificate) {
        tls.certFile = clientCert();
        tls.keyFile = clientKey();
    }
    return tls;
}

SandboxServer::Options TlsFixture::sandboxOptions(bool authClients) const
{
    SandboxServer::Options options;
    options.name = authClients ? QStringLiteral("tls-mtls") : QStringLiteral("tls");
    SandboxServer::Tls tls;
    tls.certFile = serverCert();
    tls.keyFile = serverKey();
    tls.caFile = caFile();
    tls.authClients = authClients;
    tls.client = clientTls(authClients);
    options.tls = tls;
    return options;
}
