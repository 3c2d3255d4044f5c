// KeychainFixture: dbus-daemon --session on a private socket, gnome-keyring-daemon unlocked with a password
// fed on standard input (which creates the default "login" collection).
#include "keychainfixture.h"

#include "profiles/secretstore.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>

KeychainFixture::~KeychainFixture()
{
    m_keyring.kill();
    m_dbus.kill();
}

void KeychainFixture::disableKeychainForThisProcess()
{
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/lockscope-test-no-bus");
    qunsetenv("DISPLAY"); // or D-Bus would try to autolaunch a session bus for the X display
    qunsetenv("WAYLAND_DISPLAY");
}

QString KeychainFixture::keyringDirectory() const
{
    return m_dir.filePath(QStringLiteral("data/keyrings"));
}

bool KeychainFixture::waitForFile(const QString &path, ChildProcess &process, const QString &what)
{
    QDeadlineTimer deadline(10000);
    while (!QFileInfo::exists(path)) {
        if (!process.isRunning() || deadline.hasExpired()) {
            QFile log(m_dir.filePath(what + QStringLiteral(".log")));
            log.open(QIODevice::ReadOnly);
            m_error = QStringLiteral("%1 did not start (%2): %3")
                          .arg(what, process.exitDescription(), QString::fromLocal8Bit(log.readAll()));
            return false;
        }
        QThread::msleep(10); // polling a starting daemon for its socket
    }
    return true;
}

bool KeychainFixture::start()
{
    const QString dbus = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
    const QString keyring = QStandardPaths::findExecutable(QStringLiteral("gnome-keyring-daemon"));
    if (dbus.isEmpty() || keyring.isEmpty()) {
        m_error
            = QStringLiteral("dbus-daemon or gnome-keyring-daemon is not installed (Debian: apt-get install "
                             "dbus-daemon gnome-keyring)");
        return false;
    }
    if (!m_dir.isValid()) {
        m_error = m_dir.errorString();
        return false;
    }
    const QString bus = m_dir.filePath(QStringLiteral("bus"));
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
    qputenv("XDG_DATA_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("data"))));
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + QFile::encodeName(bus));
    qunsetenv("DISPLAY");
    qunsetenv("WAYLAND_DISPLAY");
    if (!m_dbus.start(dbus,
                      {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--nopidfile"),
                       QStringLiteral("--address=unix:path=") + bus},
                      m_dir.path(), m_dir.filePath(QStringLiteral("dbus.log")))) {
        m_error = m_dbus.errorString();
        return false;
    }
    if (!waitForFile(bus, m_dbus, QStringLiteral("dbus")))
        return false;
    // The keyring password arrives on standard input; `exec` keeps the daemon our direct child.
    QFile password(m_dir.filePath(QStringLiteral("keyring-password")));
    if (!password.open(QIODevice::WriteOnly) || password.write("lockscope-test") < 0) {
        m_error = password.errorString();
        return false;
    }
    password.close();
    if (!m_keyring.start(QStringLiteral("/bin/sh"),
                         {QStringLiteral("-c"),
                          QStringLiteral("exec \"$0\" --foreground --unlock --components=secrets < \"$1\""),
                          keyring, password.fileName()},
                         m_dir.path(), m_dir.filePath(QStringLiteral("keyring.log")))) {
        m_error = m_keyring.errorString();
        return false;
    }
    // Ready when a write succeeds (the daemon registers on the bus and creates its collection).
    SecretStore store(nullptr, QStringLiteral("lockscope-fixture"));
    QDeadlineTimer deadline(15000);
    SecretStore::Result r;
    while (!(r = store.writeNow(QStringLiteral("ready"), QStringLiteral("x"), 2000)).ok()) {
        if (!m_keyring.isRunning() || deadline.hasExpired()) {
            QFile log(m_dir.filePath(QStringLiteral("keyring.log")));
            log.open(QIODevice::ReadOnly);
            m_error = QStringLiteral("gnome-keyring-daemon is not usable (%1): %2")
                          .arg(r.error, QString::fromLocal8Bit(log.readAll()));
            return false;
        }
        QThread::msleep(50); // polling a starting daemon
    }
    store.removeNow(QStringLiteral("ready"));
    return true;
}
