// SecretStore against a real Secret Service (a private GNOME Keyring on a private D-Bus, started by the
// test): store, read, overwrite, delete, missing entries, and no secret in clear in the keyring's files.
// Skips, saying why, where those daemons are not installed; tst_secretstore_nokeychain covers the rest.
#include "keychainfixture.h"
#include "profiles/secretstore.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QSignalSpy>
#include <QTest>

class TestSecretStore : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void storeReadDelete();
    void overwrite();
    void missingEntry();
    void probeFindsTheKeychain();
    void asynchronousCallbacks();
    void deadContextGetsNoCallback();
    void secretsAreNotInClearOnDisk();
    void binaryAndUnicodeSecrets();

private:
    KeychainFixture m_keychain;
    bool m_available = false;
    QString m_why;
};

#define NEED_KEYCHAIN() \
    do { \
        if (!m_available) \
            QSKIP(qPrintable(QStringLiteral("no private keychain: ") + m_why)); \
    } while (false)

void TestSecretStore::initTestCase()
{
    m_available = m_keychain.start();
    m_why = m_keychain.errorString();
}

void TestSecretStore::storeReadDelete()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QVERIFY(store.writeNow(QStringLiteral("profile/a"), QStringLiteral("pw-a")).ok());
    const SecretStore::Result read = store.readNow(QStringLiteral("profile/a"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.secret, QStringLiteral("pw-a"));
    QVERIFY(store.removeNow(QStringLiteral("profile/a")).ok());
    QCOMPARE(store.readNow(QStringLiteral("profile/a")).status, SecretStore::Status::NotFound);
    QVERIFY(store.removeNow(QStringLiteral("profile/a")).ok()); // removing what is gone is fine
}

void TestSecretStore::overwrite()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QVERIFY(store.writeNow(QStringLiteral("profile/b"), QStringLiteral("old")).ok());
    QVERIFY(store.writeNow(QStringLiteral("profile/b"), QStringLiteral("new")).ok());
    QCOMPARE(store.readNow(QStringLiteral("profile/b")).secret, QStringLiteral("new"));
    // Another service name is another namespace
    SecretStore other(nullptr, QStringLiteral("lockscope-test-other"));
    QCOMPARE(other.readNow(QStringLiteral("profile/b")).status, SecretStore::Status::NotFound);
}

void TestSecretStore::missingEntry()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    const SecretStore::Result r = store.readNow(QStringLiteral("profile/never-stored"));
    QCOMPARE(r.status, SecretStore::Status::NotFound);
    QVERIFY(r.secret.isEmpty());
    QVERIFY2(r.error.contains(QLatin1String("no saved password")), qPrintable(r.error));
}

void TestSecretStore::probeFindsTheKeychain()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QObject context;
    std::optional<SecretStore::Result> result;
    store.probe(&context, [&](const SecretStore::Result &r) { result = r; });
    QTRY_VERIFY(result.has_value());
    QVERIFY2(result->ok(), qPrintable(result->error));
}

void TestSecretStore::asynchronousCallbacks()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QObject context;
    bool written = false;
    bool calledSynchronously = true;
    store.write(QStringLiteral("profile/async"), QStringLiteral("later"), &context,
                [&](const SecretStore::Result &r) { written = r.ok(); });
    calledSynchronously = written;
    QVERIFY(!calledSynchronously); // results always come through the event loop
    QTRY_VERIFY(written);
    QString secret;
    store.read(QStringLiteral("profile/async"), &context,
               [&](const SecretStore::Result &r) { secret = r.secret; });
    QTRY_COMPARE(secret, QStringLiteral("later"));
}

void TestSecretStore::deadContextGetsNoCallback()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    bool called = false;
    {
        QObject context;
        store.read(QStringLiteral("profile/async"), &context,
                   [&](const SecretStore::Result &) { called = true; });
    }
    // A later job finishing proves the earlier one had time to finish too
    QVERIFY(store.readNow(QStringLiteral("profile/async")).ok());
    QCoreApplication::processEvents();
    QVERIFY(!called);
}

void TestSecretStore::secretsAreNotInClearOnDisk()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    const QString secret = QStringLiteral("clear-text-canary-5e2f");
    QVERIFY(store.writeNow(QStringLiteral("profile/canary"), secret).ok());
    int files = 0;
    QDirIterator it(m_keychain.keyringDirectory(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(secret.toUtf8()), qPrintable(f.fileName()));
        ++files;
    }
    QVERIFY2(files > 0, "the keyring keeps its collection on disk");
}

void TestSecretStore::binaryAndUnicodeSecrets()
{
    NEED_KEYCHAIN();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    const QString secret = QStringLiteral("pässwörd 🔒 with spaces, quotes \" and = signs");
    QVERIFY(store.writeNow(QStringLiteral("profile/unicode"), secret).ok());
    QCOMPARE(store.readNow(QStringLiteral("profile/unicode")).secret, secret);
}

QTEST_GUILESS_MAIN(TestSecretStore)
#include "tst_secretstore.moc"
