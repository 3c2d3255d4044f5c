// SecretStore where no keychain service exists (CI machines, servers, Xvfb without a Secret Service): every
// operation ends promptly with Unavailable and a sentence, so callers fall back to asking every time.
#include "keychainfixture.h"
#include "profiles/secretstore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTest>

class TestSecretStoreNoKeychain : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void everyOperationSaysUnavailable();
    void probeSaysUnavailable();
    void nothingIsWrittenAnywhereElse();
};

void TestSecretStoreNoKeychain::initTestCase()
{
    KeychainFixture::disableKeychainForThisProcess();
}

void TestSecretStoreNoKeychain::everyOperationSaysUnavailable()
{
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QElapsedTimer timer;
    timer.start();
    const SecretStore::Result w = store.writeNow(QStringLiteral("profile/x"), QStringLiteral("pw"));
    QCOMPARE(w.status, SecretStore::Status::Unavailable);
    QVERIFY2(w.error.contains(QLatin1String("no system keychain is available")), qPrintable(w.error));
    const SecretStore::Result r = store.readNow(QStringLiteral("profile/x"));
    QCOMPARE(r.status, SecretStore::Status::Unavailable);
    QVERIFY(r.secret.isEmpty());
    QCOMPARE(store.removeNow(QStringLiteral("profile/x")).status, SecretStore::Status::Unavailable);
    QVERIFY2(timer.elapsed() < 10000, "no keychain must not mean a long wait");
}

void TestSecretStoreNoKeychain::probeSaysUnavailable()
{
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QObject context;
    std::optional<SecretStore::Result> result;
    store.probe(&context, [&](const SecretStore::Result &r) { result = r; });
    QTRY_VERIFY(result.has_value());
    QCOMPARE(result->status, SecretStore::Status::Unavailable);
}

void TestSecretStoreNoKeychain::nothingIsWrittenAnywhereElse()
{
    // QtKeychain's "insecure fallback" would write to a QSettings file: it must stay off.
    QStandardPaths::setTestModeEnabled(true);
    const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QDir(config).removeRecursively();
    SecretStore store(nullptr, QStringLiteral("lockscope-test"));
    QCOMPARE(store.writeNow(QStringLiteral("profile/fallback"), QStringLiteral("fallback-canary")).status,
             SecretStore::Status::Unavailable);
    QVERIFY(!QDir(config).exists() || QDir(config).isEmpty());
}

QTEST_GUILESS_MAIN(TestSecretStoreNoKeychain)
#include "tst_secretstore_nokeychain.moc"
