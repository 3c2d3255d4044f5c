// ProfileStore: profiles survive a round trip through an owner-only INI file that never holds a password;
// duplicate, delete, unique names, export and import without secrets, and damaged input.
#include "profiles/profilestore.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

class TestProfileStore : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void emptyStore();
    void saveAndLoad();
    void settingsFileIsOwnerOnlyAndHoldsNoPassword();
    void tightensLooseExistingPermissions();
    void defaultPathHonoursXdgConfigHome();
    void namesAreUnique();
    void editKeepsTheIdAndDropsStaleKeys();
    void duplicateAndRemove();
    void findByIdOrName();
    void exportHasNoSecretsAndNoIds();
    void importAddsUnderNewIdsAndAsksForKeychainPasswords();
    void importRejectsBadFilesAndAddsNothing_data();
    void importRejectsBadFilesAndAddsNothing();
    void damagedEntryIsSkippedWithAWarning();

private:
    ConnectionProfile profile(const QString &name, const QString &password = {}) const;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_file;
};

void TestProfileStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_file = m_dir->filePath(QStringLiteral("LockScope/connections.conf"));
}

ConnectionProfile TestProfileStore::profile(const QString &name, const QString &password) const
{
    ConnectionProfile p = ConnectionProfile::create(name);
    p.settings.host = QStringLiteral("redis.example");
    p.settings.port = 6380;
    if (!password.isEmpty()) {
        p.settings.user = QStringLiteral("ops");
        p.settings.password = password;
        p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    }
    return p;
}

static int mode(const QString &path)
{
    struct stat st;
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
}

void TestProfileStore::emptyStore()
{
    ProfileStore store(m_file);
    QVERIFY(store.profiles().isEmpty());
    QVERIFY(!QFileInfo::exists(m_file)); // reading creates nothing
    QVERIFY(!store.find(QStringLiteral("anything")));
}

void TestProfileStore::saveAndLoad()
{
    ProfileStore store(m_file);
    ConnectionProfile p = profile(QStringLiteral("staging"));
    p.settings.tls.enabled = true;
    p.settings.tls.serverName = QStringLiteral("redis.staging");
    p.settings.ssh.enabled = true;
    p.settings.ssh.host = QStringLiteral("bastion");
    p.settings.ssh.port = 2200;
    p.color = QStringLiteral("#2563eb");
    p.lockPatterns = {QStringLiteral("lock:*"), QStringLiteral("redisson_lock__*")};
    p.scanCount = 1000;
    QString error;
    QVERIFY2(store.save(p, &error), qPrintable(error));
    const QList<ConnectionProfile> loaded = ProfileStore(m_file).profiles();
    QCOMPARE(loaded.size(), 1);
    QCOMPARE(loaded.first(), p);
    QVERIFY(store.warnings().isEmpty());
}

void TestProfileStore::settingsFileIsOwnerOnlyAndHoldsNoPassword()
{
    ProfileStore store(m_file);
    QString error;
    const QString password = QStringLiteral("Zq8-unique-secret-91c");
    QVERIFY2(store.save(profile(QStringLiteral("prod"), password), &error), qPrintable(error));
    QCOMPARE(mode(m_file), 0600);
    QCOMPARE(mode(QFileInfo(m_file).absolutePath()), 0700);
    QFile file(m_file);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray contents = file.readAll();
    QVERIFY2(contents.contains("redis.example"), contents.constData()); // it is the right file
    QVERIFY2(!contents.contains(password.toUtf8()), contents.constData());
    QVERIFY2(!contents.contains(password.toUtf8().toBase64()), contents.constData());
    QVERIFY(contents.contains("passwordStorage=keychain"));
    // and after more writes (QSettings rewrites the file through a temporary one)
    QVERIFY(store.save(profile(QStringLiteral("second")), &error));
    QCOMPARE(mode(m_file), 0600);
}

void TestProfileStore::tightensLooseExistingPermissions()
{
    QString error;
    QVERIFY(ProfileStore::makePrivate(m_file, &error));
    QVERIFY(::chmod(QFile::encodeName(m_file).constData(), 0644) == 0);
    ProfileStore store(m_file);
    QVERIFY2(store.save(profile(QStringLiteral("a")), &error), qPrintable(error));
    QCOMPARE(mode(m_file), 0600);
}

void TestProfileStore::defaultPathHonoursXdgConfigHome()
{
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir->path()));
    QCOMPARE(ProfileStore::defaultFilePath(), m_file);
    qunsetenv("XDG_CONFIG_HOME");
}

void TestProfileStore::namesAreUnique()
{
    ProfileStore store(m_file);
    QString error;
    QVERIFY(store.save(profile(QStringLiteral("prod")), &error));
    QVERIFY(!store.save(profile(QStringLiteral("PROD")), &error));
    QVERIFY2(error.contains(QLatin1String("already exists")), qPrintable(error));
    QCOMPARE(store.uniqueName(QStringLiteral("prod")), QStringLiteral("prod (2)"));
    QCOMPARE(store.uniqueName(QStringLiteral("other")), QStringLiteral("other"));
}

void TestProfileStore::editKeepsTheIdAndDropsStaleKeys()
{
    ProfileStore store(m_file);
    QString error;
    ConnectionProfile p = profile(QStringLiteral("edit-me"));
    p.lockPatterns = {QStringLiteral("a:*"), QStringLiteral("b:*")};
    QVERIFY(store.save(p, &error));
    p.name = QStringLiteral("renamed");
    p.lockPatterns.clear();
    p.settings.readOnly = false;
    QVERIFY2(store.save(p, &error), qPrintable(error));
    const QList<ConnectionProfile> all = store.profiles();
    QCOMPARE(all.size(), 1);
    QCOMPARE(all.first().id, p.id);
    QCOMPARE(all.first().name, QStringLiteral("renamed"));
    QVERIFY(all.first().lockPatterns.isEmpty());
    QVERIFY(!all.first().settings.readOnly);
}

void TestProfileStore::duplicateAndRemove()
{
    ProfileStore store(m_file);
    QString error;
    const ConnectionProfile p = profile(QStringLiteral("prod"), QStringLiteral("pw"));
    QVERIFY(store.save(p, &error));
    const std::optional<ConnectionProfile> copy = store.duplicate(p.id, &error);
    QVERIFY2(copy, qPrintable(error));
    QCOMPARE(copy->name, QStringLiteral("prod (copy)"));
    QVERIFY(copy->id != p.id);
    QCOMPARE(copy->settings.host, p.settings.host);
    QCOMPARE(store.duplicate(p.id, &error)->name, QStringLiteral("prod (copy) (2)"));
    QCOMPARE(store.profiles().size(), 3);
    QVERIFY2(store.remove(p.id, &error), qPrintable(error));
    QCOMPARE(store.profiles().size(), 2);
    QVERIFY(!store.find(p.id));
    QVERIFY(!store.remove(p.id, &error));
    QVERIFY(!store.duplicate(QStringLiteral("nope"), &error));
}

void TestProfileStore::findByIdOrName()
{
    ProfileStore store(m_file);
    QString error;
    const ConnectionProfile p = profile(QStringLiteral("Prod EU"));
    QVERIFY(store.save(p, &error));
    QCOMPARE(store.find(p.id)->name, QStringLiteral("Prod EU"));
    QCOMPARE(store.find(QStringLiteral("Prod EU"))->id, p.id);
    QCOMPARE(store.find(QStringLiteral("prod eu"))->id, p.id);
}

void TestProfileStore::exportHasNoSecretsAndNoIds()
{
    const ConnectionProfile p = profile(QStringLiteral("prod"), QStringLiteral("exported-secret-77"));
    const QByteArray json = ProfileStore::exportJson({p});
    QVERIFY(!json.contains("exported-secret-77"));
    QVERIFY(!json.contains(p.id.toUtf8()));
    const QJsonObject root = QJsonDocument::fromJson(json).object();
    QCOMPARE(root.value(QStringLiteral("format")).toString(), QStringLiteral("lockscope-profiles"));
    QCOMPARE(root.value(QStringLiteral("profiles")).toArray().size(), 1);
}

void TestProfileStore::importAddsUnderNewIdsAndAsksForKeychainPasswords()
{
    ProfileStore store(m_file);
    QString error;
    const ConnectionProfile existing = profile(QStringLiteral("prod"));
    QVERIFY(store.save(existing, &error));
    ConnectionProfile shared = profile(QStringLiteral("prod"), QStringLiteral("pw"));
    shared.production = true;
    ConnectionProfile other = profile(QStringLiteral("staging"));
    other.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
    other.settings.user = QStringLiteral("u");
    const QList<ConnectionProfile> added
        = store.importJson(ProfileStore::exportJson({shared, other}), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(added.size(), 2);
    QCOMPARE(added.at(0).name, QStringLiteral("prod (2)"));
    QVERIFY(added.at(0).id != shared.id && added.at(0).id != existing.id);
    QVERIFY(added.at(0).production);
    QCOMPARE(added.at(0).passwordStorage, ConnectionProfile::PasswordStorage::Ask); // no secret travelled
    QCOMPARE(added.at(1).passwordStorage, ConnectionProfile::PasswordStorage::Ask);
    QCOMPARE(store.profiles().size(), 3);
}

void TestProfileStore::importRejectsBadFilesAndAddsNothing_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << QByteArray("{nope") << "not a JSON file";
    QTest::newRow("other format") << QByteArray(R"({"format":"rdm","profiles":[]})")
                                  << "not a LockScope profiles file";
    QTest::newRow("future version") << QByteArray(
        R"({"format":"lockscope-profiles","version":9,"profiles":[]})")
                                    << "version 9 is not supported";
    QTest::newRow("invalid profile") << QByteArray(
        R"({"format":"lockscope-profiles","version":1,"profiles":[{"name":"ok"},{"name":"bad","port":0}]})")
                                     << "profile 2 in the file: port 0 is out of range";
}

void TestProfileStore::importRejectsBadFilesAndAddsNothing()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    ProfileStore store(m_file);
    QString error;
    QVERIFY(store.importJson(json, &error).isEmpty());
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(store.profiles().isEmpty());
}

void TestProfileStore::damagedEntryIsSkippedWithAWarning()
{
    ProfileStore store(m_file);
    QString error;
    QVERIFY(store.save(profile(QStringLiteral("good")), &error));
    QFile file(m_file);
    QVERIFY(file.open(QIODevice::Append));
    file.write("\n[profiles]\nbroken-id\\host=x\nbroken-id\\passwordStorage=plaintext\n");
    file.close();
    const QList<ConnectionProfile> all = store.profiles();
    QCOMPARE(all.size(), 1);
    QCOMPARE(all.first().name, QStringLiteral("good"));
    QCOMPARE(store.warnings().size(), 1);
}

QTEST_GUILESS_MAIN(TestProfileStore)
#include "tst_profilestore.moc"
