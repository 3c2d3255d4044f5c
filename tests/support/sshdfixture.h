// A private OpenSSH server for tunnel tests: sshd on a free loopback port, run as the current user with a
// host key, a user key and a client config made fresh in a temporary directory. Dies with the test.
#pragma once

#include "redis/childprocess.h"
#include "redis/connectionsettings.h"

#include <QString>
#include <QTemporaryDir>

class SshdFixture
{
public:
    ~SshdFixture();
    // Starts sshd. False with errorString() when it cannot run here (then tests skip and say why).
    bool start();
    QString errorString() const { return m_error; }
    int port() const { return m_port; }
    QString path(const QString &name) const { return m_dir.filePath(name); }
    // Tunnel settings that log in with the test key and know sshd's host key; Redis endpoint left to fill in.
    ConnectionSettings::Ssh tunnel() const;
    // A client config whose known_hosts does not know sshd's host key.
    QString configWithoutHostKey() const { return path(QStringLiteral("ssh_config_unknown_host")); }
    // A key sshd does not accept.
    QString strangerKey() const { return path(QStringLiteral("stranger_key")); }
    QString log() const;

private:
    bool keygen(const QString &name);
    bool write(const QString &name, const QString &text);

    QTemporaryDir m_dir;
    ChildProcess m_sshd;
    int m_port = 0;
    QString m_error;
};
