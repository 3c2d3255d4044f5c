// ProfilesDialog offscreen, on a machine without any keychain (the CI case): create, edit, duplicate, delete,
// test, export and import profiles; passwords are asked for and never reach a file.
#include "connection/connectiondialog.h"
#include "keychainfixture.h"
#include "connection/passwordprompt.h"
#include "connection/profilecredentials.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"
#include "connection/profilesdialog.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>

class TestProfilesDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void emptyListExplainsItself();
    void saysThereIsNoKeychain();
    void newProfileWithPasswordFallsBackToAsking();
    void testAsksForThePasswordAndReportsTheServer();
    void cancelledPasswordCancelsTheTest();
    void duplicateAndDelete();
    void exportAndImportWithoutSecrets();
    void badImportAddsNothing();

private:
    void fillEditorAndSave(ConnectionDialog *editor, const QString &name, const QString &password);
    PasswordPrompt *waitForPrompt(QWidget *parent);

    SandboxServer m_server; // with an ACL user
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ProfileStore> m_store;
    std::unique_ptr<SecretStore> m_secrets;
    std::unique_ptr<ProfileCredentials> m_credentials;
    std::unique_ptr<ProfilesDialog> m_dialog;
};

void TestProfilesDialog::initTestCase()
{
    KeychainFixture::disableKeychainForThisProcess();
    LS_START(m_server);
    RedisConnection admin(m_server.connectionSettings());
    LS_OPEN(admin);
    QVERIFY(TestSupport::addReadOnlyUser(admin, "oncall", "dialog-pw-3c9"));
}

void TestProfilesDialog::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_store = std::make_unique<ProfileStore>(m_dir->filePath(QStringLiteral("LockScope/connections.conf")));
    m_secrets = std::make_unique<SecretStore>(nullptr, QStringLiteral("lockscope-test"));
    m_credentials = std::make_unique<ProfileCredentials>(m_store.get(), m_secrets.get());
    m_dialog = std::make_unique<ProfilesDialog>(m_credentials.get());
    m_dialog->show();
}

void TestProfilesDialog::cleanup()
{
    m_dialog.reset();
    m_credentials.reset();
}

PasswordPrompt *TestProfilesDialog::waitForPrompt(QWidget *parent)
{
    PasswordPrompt *prompt = nullptr;
    const bool shown = QTest::qWaitFor(
        [&] { return (prompt = parent->findChild<PasswordPrompt *>()) && prompt->isVisible(); }, 10000);
    return shown ? prompt : nullptr;
}

void TestProfilesDialog::fillEditorAndSave(ConnectionDialog *editor, const QString &name,
                                           const QString &password)
{
    editor->findChild<QLineEdit *>(QStringLiteral("profileNameEdit"))->setText(name);
    editor->findChild<QLineEdit *>(QStringLiteral("hostEdit"))->setText(QStringLiteral("127.0.0.1"));
    editor->findChild<QSpinBox *>(QStringLiteral("portSpin"))->setValue(m_server.port());
    editor->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("oncall"));
    editor->findChild<QLineEdit *>(QStringLiteral("passwordEdit"))->setText(password);
    editor->findChild<QComboBox *>(QStringLiteral("passwordStorageCombo"))->setCurrentIndex(1); // keychain
    editor->findChild<QCheckBox *>(QStringLiteral("productionCheck"))->setChecked(true);
    QVERIFY2(editor->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled(),
             qPrintable(editor->statusText()));
    editor->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
}

void TestProfilesDialog::emptyListExplainsItself()
{
    QCOMPARE(m_dialog->profileCount(), 0);
    QVERIFY(m_dialog->detailsText().contains(QLatin1String("No saved profiles")));
    QVERIFY(!m_dialog->findChild<QPushButton *>(QStringLiteral("editButton"))->isEnabled());
}

void TestProfilesDialog::saysThereIsNoKeychain()
{
    QTRY_VERIFY_WITH_TIMEOUT(m_dialog->keychainText().contains(QLatin1String("No system keychain")), 10000);
    QVERIFY(m_dialog->keychainText().contains(QLatin1String("asked for at every connection")));
    // A new profile is not offered the keychain it cannot have.
    m_dialog->newProfile();
    QVERIFY(m_dialog->editor());
    auto *storage = m_dialog->editor()->findChild<QComboBox *>(QStringLiteral("passwordStorageCombo"));
    auto *model = qobject_cast<QStandardItemModel *>(storage->model());
    QVERIFY(model);
    QVERIFY(!model->item(int(ConnectionProfile::PasswordStorage::Keychain))->isEnabled());
    QVERIFY(!model->item(int(ConnectionProfile::PasswordStorage::Keychain))->toolTip().isEmpty());
    QVERIFY(storage->currentIndex() != int(ConnectionProfile::PasswordStorage::Keychain));
}

void TestProfilesDialog::newProfileWithPasswordFallsBackToAsking()
{
    m_dialog->newProfile();
    QVERIFY(m_dialog->editor());
    fillEditorAndSave(m_dialog->editor(), QStringLiteral("prod"), QStringLiteral("dialog-pw-3c9"));
    QTRY_COMPARE_WITH_TIMEOUT(m_dialog->profileCount(), 1, 10000);
    QVERIFY2(m_dialog->statusText().contains(QLatin1String("will ask for it at every connection")),
             qPrintable(m_dialog->statusText()));
    const ConnectionProfile saved = m_store->profiles().first();
    QCOMPARE(saved.passwordStorage, ConnectionProfile::PasswordStorage::Ask);
    QVERIFY(saved.production);
    // No password anywhere under the settings directory
    QDirIterator it(m_dir->path(), QDir::Files, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains("dialog-pw-3c9"), qPrintable(f.fileName()));
        ++files;
    }
    QCOMPARE(files, 1);
    QVERIFY(m_dialog->detailsText().contains(QLatin1String("asked every time")));
}

void TestProfilesDialog::testAsksForThePasswordAndReportsTheServer()
{
    m_dialog->newProfile();
    fillEditorAndSave(m_dialog->editor(), QStringLiteral("prod"), QStringLiteral("dialog-pw-3c9"));
    QTRY_COMPARE_WITH_TIMEOUT(m_dialog->profileCount(), 1, 10000);
    m_dialog->testSelected();
    PasswordPrompt *prompt = waitForPrompt(m_dialog.get());
    QVERIFY(prompt);
    QVERIFY(prompt->rememberCheck()->isHidden()); // "ask every time" does not offer to remember
    // The prompt's button says what happens next: a test, not a connection.
    auto *buttons = prompt->findChild<QDialogButtonBox *>();
    QVERIFY(buttons);
    QCOMPARE(buttons->button(QDialogButtonBox::Ok)->text(), QStringLiteral("&Test"));
    prompt->passwordEdit()->setText(QStringLiteral("dialog-pw-3c9"));
    prompt->accept();
    QTRY_VERIFY_WITH_TIMEOUT(m_dialog->statusText().startsWith(QStringLiteral("✔")), 10000);
    QVERIFY2(m_dialog->statusText().contains(QLatin1String("Redis 7.")) // the server's version
                 && m_dialog->statusText().contains(QLatin1String("standalone")) // its mode
                 && m_dialog->statusText().contains(QLatin1String("round trip")), // the latency
             qPrintable(m_dialog->statusText()));

    m_dialog->testSelected();
    prompt = waitForPrompt(m_dialog.get());
    prompt->passwordEdit()->setText(QStringLiteral("wrong"));
    prompt->accept();
    QTRY_VERIFY_WITH_TIMEOUT(m_dialog->statusText().contains(QLatin1String("Authentication failed")), 10000);
}

void TestProfilesDialog::cancelledPasswordCancelsTheTest()
{
    m_dialog->newProfile();
    fillEditorAndSave(m_dialog->editor(), QStringLiteral("prod"), QString());
    QTRY_COMPARE_WITH_TIMEOUT(m_dialog->profileCount(), 1, 10000);
    m_dialog->testSelected();
    PasswordPrompt *prompt = waitForPrompt(m_dialog.get());
    QVERIFY(prompt);
    QVERIFY2(prompt->findChild<QLabel *>(QStringLiteral("reasonLabel"))
                 ->text()
                 .contains(QLatin1String("cannot be read")),
             "a keychain profile whose entry cannot be read says so");
    prompt->reject();
    QTRY_COMPARE(m_dialog->statusText(), QStringLiteral("Test cancelled."));
    QVERIFY(m_dialog->findChild<QPushButton *>(QStringLiteral("testButton"))->isEnabled());
}

void TestProfilesDialog::duplicateAndDelete()
{
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("staging"));
    QString error;
    QVERIFY(m_store->save(p, &error));
    m_dialog->reload(p.id);
    m_dialog->duplicateSelected();
    QTRY_COMPARE(m_dialog->profileCount(), 2);
    QCOMPARE(m_dialog->selectedProfile()->name, QStringLiteral("staging (copy)"));
    m_dialog->deleteSelected();
    QMessageBox *confirm = nullptr;
    QTRY_VERIFY((confirm = m_dialog->findChild<QMessageBox *>(QStringLiteral("deleteConfirmation"))));
    confirm->button(QMessageBox::Cancel)->click();
    QCOMPARE(m_dialog->profileCount(), 2); // cancelled: nothing deleted
    m_dialog->deleteSelected();
    QTRY_VERIFY((confirm = m_dialog->findChild<QMessageBox *>(QStringLiteral("deleteConfirmation"))));
    confirm->button(QMessageBox::Yes)->click();
    QTRY_COMPARE(m_dialog->profileCount(), 1);
    QCOMPARE(m_store->profiles().first().name, QStringLiteral("staging"));
}

void TestProfilesDialog::exportAndImportWithoutSecrets()
{
    ConnectionProfile p = ConnectionProfile::create(QStringLiteral("prod"));
    p.settings.user = QStringLiteral("oncall");
    p.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    p.lockPatterns = {QStringLiteral("lock:*")};
    QString error;
    QVERIFY(m_store->save(p, &error));
    m_dialog->reload(p.id);
    const QString file = m_dir->filePath(QStringLiteral("team.json"));
    QVERIFY2(m_dialog->exportTo(file, &error), qPrintable(error));
    QVERIFY(m_dialog->statusText().contains(QLatin1String("without passwords")));
    QVERIFY2(m_dialog->importFrom(file, &error), qPrintable(error));
    QCOMPARE(m_dialog->profileCount(), 2);
    QCOMPARE(m_dialog->selectedProfile()->name, QStringLiteral("prod (2)"));
    QCOMPARE(m_dialog->selectedProfile()->lockPatterns, p.lockPatterns);
    QCOMPARE(m_dialog->selectedProfile()->passwordStorage, ConnectionProfile::PasswordStorage::Ask);
}

void TestProfilesDialog::badImportAddsNothing()
{
    const QString file = m_dir->filePath(QStringLiteral("bad.json"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"something-else\"}");
    f.close();
    QString error;
    QVERIFY(!m_dialog->importFrom(file, &error));
    QVERIFY2(error.contains(QLatin1String("not a LockScope profiles file")), qPrintable(error));
    QVERIFY(!m_dialog->importFrom(m_dir->filePath(QStringLiteral("missing.json")), &error));
    QCOMPARE(m_dialog->profileCount(), 0);
}

QTEST_MAIN(TestProfilesDialog)
#include "tst_profilesdialog.moc"
