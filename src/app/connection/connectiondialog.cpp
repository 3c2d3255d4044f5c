// ConnectionDialog: binds the form to ConnectionSettings / ConnectionProfile; "Test" connects on a background
// session.
#include "connectiondialog.h"

#include "profilecredentials.h"
#include "redis/redissession.h"
#include "ui_connectiondialog.h"

#include <QColorDialog>
#include <QDir>
#include <QFileDialog>
#include <QPointer>
#include <QPushButton>
#include <QStandardItemModel>
#include <QRegularExpression>
#include <QThread>

using Storage = ConnectionProfile::PasswordStorage;

namespace {
const char *kProblemStyle = "color: #b91c1c;";
const char *kWarningStyle = "color: #b91c1c; font-weight: 600;";
// The rows of the topology combo box.
constexpr int kSingle = 0;
constexpr int kCluster = 1;
constexpr int kSentinel = 2;
} // namespace

ConnectionDialog::ConnectionDialog(QWidget *parent, Mode mode)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ConnectionDialog>())
    , m_mode(mode)
{
    m_ui->setupUi(this);
    m_ui->writeWarning->setStyleSheet(QStringLiteral("color: #c2410c; font-weight: 600;"));
    m_ui->insecureWarning->setStyleSheet(QString::fromLatin1(kWarningStyle));
    m_ui->sshNote->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_testButton = m_ui->buttonBox->addButton(tr("&Test"), QDialogButtonBox::ActionRole);
    m_testButton->setToolTip(
        tr("Connect once with these settings and report the server's version, mode and latency"));

    const bool editing = mode == Mode::EditProfile;
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(editing ? tr("&Save") : tr("&Connect"));
    setWindowTitle(editing ? tr("Connection profile") : tr("Connect to a Redis server"));
    m_ui->passwordStorageLabel->setVisible(editing);
    m_ui->passwordStorageCombo->setVisible(editing);
    if (editing) {
        // The profile tab first: a profile starts with its name.
        const int index = m_ui->tabs->indexOf(m_ui->profileTab);
        const QString title = m_ui->tabs->tabText(index);
        m_ui->tabs->removeTab(index);
        m_ui->tabs->insertTab(0, m_ui->profileTab, title);
        m_ui->tabs->setCurrentIndex(0);
        m_ui->passwordEdit->setToolTip(
            tr("Kept where the profile says below: in the system keychain, or nowhere"));
    } else {
        m_ui->tabs->removeTab(m_ui->tabs->indexOf(m_ui->profileTab));
        m_ui->profileTab->hide();
    }
    setColor({});

    m_tester = new RedisSession(this);
    connect(m_tester, &RedisSession::opened, this, [this](const ServerInfo &info) {
        m_ui->testResult->setText(tr("✔ Connected: %1 · round trip %2 ms")
                                      .arg(info.summary(), QString::number(info.roundTripMs, 'f', 2)));
        m_ui->testResult->setStyleSheet(QStringLiteral("color: #15803d;"));
        m_testButton->setEnabled(true);
        m_tester->close();
    });
    connect(m_tester, &RedisSession::failed, this, [this](const RedisError &error) {
        m_ui->testResult->setText(tr("✘ %1").arg(error.message()));
        m_ui->testResult->setStyleSheet(QString::fromLatin1(kProblemStyle));
        m_testButton->setEnabled(true);
    });
    connect(m_testButton, &QPushButton::clicked, this, &ConnectionDialog::runTest);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, [this] {
        if (problem().isEmpty())
            accept();
    });

    connect(m_ui->caFileBrowse, &QToolButton::clicked, this, [this] {
        browse(m_ui->caFileEdit, tr("CA certificate"),
               tr("PEM certificates (*.pem *.crt *.cer);;All files (*)"));
    });
    connect(m_ui->certFileBrowse, &QToolButton::clicked, this, [this] {
        browse(m_ui->certFileEdit, tr("Client certificate"),
               tr("PEM certificates (*.pem *.crt *.cer);;All files (*)"));
    });
    connect(m_ui->keyFileBrowse, &QToolButton::clicked, this, [this] {
        browse(m_ui->keyFileEdit, tr("Client key"), tr("PEM keys (*.pem *.key);;All files (*)"));
    });
    connect(m_ui->sshIdentityBrowse, &QToolButton::clicked, this,
            [this] { browse(m_ui->sshIdentityEdit, tr("SSH private key"), tr("All files (*)")); });
    connect(m_ui->sshConfigBrowse, &QToolButton::clicked, this,
            [this] { browse(m_ui->sshConfigEdit, tr("ssh config file"), tr("All files (*)")); });
    connect(m_ui->colorButton, &QPushButton::clicked, this, [this] {
        const QColor chosen = QColorDialog::getColor(m_color.isEmpty() ? QColor(0xdc2626) : QColor(m_color),
                                                     this, tr("Profile colour"));
        if (chosen.isValid())
            setColor(chosen.name());
    });
    connect(m_ui->colorClearButton, &QPushButton::clicked, this, [this] { setColor({}); });

    for (QLineEdit *edit : findChildren<QLineEdit *>())
        connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::updateState);
    for (QAbstractButton *button : findChildren<QAbstractButton *>()) {
        if (button->isCheckable())
            connect(button, &QAbstractButton::toggled, this, &ConnectionDialog::updateState);
    }
    connect(m_ui->passwordStorageCombo, &QComboBox::currentIndexChanged, this,
            &ConnectionDialog::updateState);
    connect(m_ui->lockPatternsEdit, &QPlainTextEdit::textChanged, this, &ConnectionDialog::updateState);
    connect(m_ui->topologyCombo, &QComboBox::currentIndexChanged, this, &ConnectionDialog::updateState);
    connect(m_ui->masterCombo, &QComboBox::currentTextChanged, this, &ConnectionDialog::updateState);
    connect(m_ui->listMastersButton, &QPushButton::clicked, this, &ConnectionDialog::listMasters);
    updateState();
}

ConnectionDialog::~ConnectionDialog() = default;

void ConnectionDialog::browse(QLineEdit *edit, const QString &title, const QString &filter)
{
    const QString start = edit->text().isEmpty() ? QDir::homePath() : edit->text();
    const QString file = QFileDialog::getOpenFileName(this, title, start, filter);
    if (!file.isEmpty())
        edit->setText(file);
}

void ConnectionDialog::setColor(const QString &color)
{
    m_color = color;
    m_ui->colorButton->setText(color.isEmpty() ? tr("Choose…") : color);
    m_ui->colorButton->setStyleSheet(
        color.isEmpty()
            ? QString()
            : QStringLiteral("QPushButton { background: %1; color: white; font-weight: 600; }").arg(color));
    m_ui->colorClearButton->setEnabled(!color.isEmpty());
}

void ConnectionDialog::setSettings(const ConnectionSettings &s)
{
    m_ui->socketRadio->setChecked(s.usesSocket());
    m_ui->tcpRadio->setChecked(!s.usesSocket());
    m_ui->hostEdit->setText(s.host);
    m_ui->portSpin->setValue(s.port);
    m_ui->socketEdit->setText(s.socketPath);
    m_ui->dbSpin->setValue(s.db);
    m_ui->topologyCombo->setCurrentIndex(s.sentinel.enabled() ? kSentinel : s.cluster ? kCluster : kSingle);
    m_ui->sentinelsEdit->setText(s.sentinel.nodes.join(QStringLiteral(", ")));
    m_ui->masterCombo->setEditText(s.sentinel.masterName);
    m_ui->sentinelPasswordEdit->setText(s.sentinel.password);
    m_ui->userEdit->setText(s.user);
    m_ui->passwordEdit->setText(s.password);
    m_ui->readOnlyCheck->setChecked(s.readOnly);
    m_ui->connectTimeoutSpin->setValue(s.connectTimeoutMs);
    m_ui->commandTimeoutSpin->setValue(s.commandTimeoutMs);
    m_ui->tlsCheck->setChecked(s.tls.enabled);
    m_ui->caFileEdit->setText(s.tls.caFile);
    m_ui->certFileEdit->setText(s.tls.certFile);
    m_ui->keyFileEdit->setText(s.tls.keyFile);
    m_ui->serverNameEdit->setText(s.tls.serverName);
    m_ui->insecureCheck->setChecked(!s.tls.verifyPeer);
    m_ui->sshCheck->setChecked(s.ssh.enabled);
    m_ui->sshHostEdit->setText(s.ssh.host);
    m_ui->sshPortSpin->setValue(s.ssh.port);
    m_ui->sshUserEdit->setText(s.ssh.user);
    m_ui->sshIdentityEdit->setText(s.ssh.identityFile);
    m_ui->sshJumpEdit->setText(s.ssh.jumpHosts);
    m_ui->sshConfigEdit->setText(s.ssh.configFile);
    updateState();
}

ConnectionSettings ConnectionDialog::settings() const
{
    ConnectionSettings s;
    s.host = m_ui->hostEdit->text().trimmed();
    s.port = m_ui->portSpin->value();
    s.socketPath = m_ui->socketRadio->isChecked() ? m_ui->socketEdit->text().trimmed() : QString();
    s.db = m_ui->dbSpin->value();
    const int topology = m_ui->topologyCombo->currentIndex();
    s.cluster = topology == kCluster;
    if (topology == kSentinel) {
        s.socketPath.clear();
        s.sentinel.nodes = sentinelNodes(m_ui->sentinelsEdit->text());
        s.sentinel.masterName = m_ui->masterCombo->currentText().trimmed();
        s.sentinel.password = m_ui->sentinelPasswordEdit->text();
    }
    s.user = m_ui->userEdit->text().trimmed();
    s.password = m_ui->passwordEdit->text();
    s.readOnly = m_ui->readOnlyCheck->isChecked();
    s.connectTimeoutMs = m_ui->connectTimeoutSpin->value();
    s.commandTimeoutMs = m_ui->commandTimeoutSpin->value();
    s.tls.enabled = m_ui->tlsCheck->isChecked();
    s.tls.caFile = m_ui->caFileEdit->text().trimmed();
    s.tls.certFile = m_ui->certFileEdit->text().trimmed();
    s.tls.keyFile = m_ui->keyFileEdit->text().trimmed();
    s.tls.serverName = m_ui->serverNameEdit->text().trimmed();
    s.tls.verifyPeer = !m_ui->insecureCheck->isChecked();
    s.ssh.enabled = m_ui->sshCheck->isChecked();
    s.ssh.host = m_ui->sshHostEdit->text().trimmed();
    s.ssh.port = m_ui->sshPortSpin->value();
    s.ssh.user = m_ui->sshUserEdit->text().trimmed();
    s.ssh.identityFile = m_ui->sshIdentityEdit->text().trimmed();
    s.ssh.jumpHosts = m_ui->sshJumpEdit->text().trimmed();
    s.ssh.configFile = m_ui->sshConfigEdit->text().trimmed();
    return s;
}

void ConnectionDialog::setProfile(const ConnectionProfile &profile)
{
    m_profileId = profile.id;
    m_hasSavedPassword = profile.passwordStorage == Storage::Keychain;
    setSettings(profile.settings);
    m_ui->passwordEdit->clear();
    m_ui->profileNameEdit->setText(profile.name);
    m_ui->passwordStorageCombo->setCurrentIndex(int(profile.passwordStorage));
    setColor(profile.color);
    m_ui->productionCheck->setChecked(profile.production);
    m_ui->lockPatternsEdit->setPlainText(profile.lockPatterns.join(u'\n'));
    m_ui->scanCountSpin->setValue(profile.scanCount);
    m_ui->scanMaxOpsSpin->setValue(profile.scanMaxOps);
    updateState();
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile p;
    p.id = m_profileId;
    p.name = m_ui->profileNameEdit->text().trimmed();
    p.settings = settings();
    p.settings.password.clear(); // the caller keeps typedPassword() where the profile says
    p.passwordStorage = Storage(m_ui->passwordStorageCombo->currentIndex());
    p.color = m_color;
    p.production = m_ui->productionCheck->isChecked();
    for (const QString &line : m_ui->lockPatternsEdit->toPlainText().split(u'\n')) {
        if (!line.trimmed().isEmpty())
            p.lockPatterns << line.trimmed();
    }
    p.scanCount = m_ui->scanCountSpin->value();
    p.scanMaxOps = m_ui->scanMaxOpsSpin->value();
    return p;
}

QString ConnectionDialog::typedPassword() const
{
    return m_ui->passwordEdit->text();
}

QString ConnectionDialog::statusText() const
{
    return m_ui->testResult->text();
}

QString ConnectionDialog::problem() const
{
    if (m_ui->socketRadio->isChecked() && m_ui->socketEdit->text().trimmed().isEmpty())
        return tr("Give the path of the server's Unix socket.");
    if (m_ui->topologyCombo->currentIndex() == kSentinel
        && sentinelNodes(m_ui->sentinelsEdit->text()).isEmpty())
        return tr("Give the address of at least one sentinel (host:port).");
    if (m_mode == Mode::Connect)
        return settings().validate();
    const ConnectionProfile p = profile();
    if (p.passwordStorage == Storage::None && !typedPassword().isEmpty())
        return tr("A password is typed but the profile keeps none: choose where to keep it.");
    return p.validate();
}

void ConnectionDialog::updateState()
{
    const int topology = m_ui->topologyCombo->currentIndex();
    if (topology != kSingle && m_ui->socketRadio->isChecked())
        m_ui->tcpRadio->setChecked(true); // clusters and sentinels give TCP addresses
    m_ui->socketRadio->setEnabled(topology == kSingle);
    const bool socket = m_ui->socketRadio->isChecked();
    m_ui->hostEdit->setEnabled(!socket && topology != kSentinel);
    m_ui->portSpin->setEnabled(!socket && topology != kSentinel);
    m_ui->socketEdit->setEnabled(socket);
    for (QWidget *w :
         {static_cast<QWidget *>(m_ui->sentinelsLabel), static_cast<QWidget *>(m_ui->sentinelsEdit),
          static_cast<QWidget *>(m_ui->masterLabel), static_cast<QWidget *>(m_ui->masterCombo),
          static_cast<QWidget *>(m_ui->listMastersButton),
          static_cast<QWidget *>(m_ui->sentinelPasswordLabel),
          static_cast<QWidget *>(m_ui->sentinelPasswordEdit)})
        w->setVisible(topology == kSentinel);
    m_ui->listMastersButton->setEnabled(!m_listing && !sentinelNodes(m_ui->sentinelsEdit->text()).isEmpty());
    m_ui->dbSpin->setEnabled(topology != kCluster);
    m_ui->writeWarning->setVisible(!m_ui->readOnlyCheck->isChecked());
    const bool tls = m_ui->tlsCheck->isChecked();
    m_ui->tlsGroup->setEnabled(tls);
    m_ui->insecureWarning->setVisible(tls && m_ui->insecureCheck->isChecked());
    m_ui->sshGroup->setEnabled(m_ui->sshCheck->isChecked());
    m_ui->tabs->setTabText(m_ui->tabs->indexOf(m_ui->tlsTab),
                           tls ? (m_ui->insecureCheck->isChecked() ? tr("T&LS ⚠") : tr("T&LS ✔"))
                               : tr("T&LS"));
    m_ui->tabs->setTabText(m_ui->tabs->indexOf(m_ui->sshTab),
                           m_ui->sshCheck->isChecked() ? tr("SS&H tunnel ✔") : tr("SS&H tunnel"));
    if (m_mode == Mode::EditProfile) {
        const auto storage = Storage(m_ui->passwordStorageCombo->currentIndex());
        m_ui->passwordEdit->setEnabled(storage != Storage::None || !m_ui->passwordEdit->text().isEmpty());
        m_ui->passwordEdit->setPlaceholderText(storage == Storage::Keychain && m_hasSavedPassword
                                                   ? tr("unchanged (saved in the keychain)")
                                                   : storage == Storage::Ask ? tr("asked at every connection")
                                                                             : tr("none"));
    }
    const QString p = problem();
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
    m_testButton->setEnabled(p.isEmpty());
    m_ui->testResult->setText(p);
    m_ui->testResult->setStyleSheet(p.isEmpty() ? QString() : QString::fromLatin1(kProblemStyle));
}

QStringList ConnectionDialog::sentinelNodes(const QString &text)
{
    QStringList nodes;
    for (const QString &part : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
        nodes << part.trimmed();
    return nodes;
}

void ConnectionDialog::listMasters()
{
    ConnectionSettings s = settings();
    s.sentinel.masterName = QStringLiteral("-");
    if (const QString p = s.validate(); !p.isEmpty()) {
        m_ui->testResult->setText(p);
        m_ui->testResult->setStyleSheet(QString::fromLatin1(kProblemStyle));
        return;
    }
    m_listing = true;
    updateState();
    m_ui->testResult->setStyleSheet(QString());
    m_ui->testResult->setText(tr("Asking the sentinels…"));
    // The sentinels are asked on a thread of their own: the GUI thread never waits on the network.
    QPointer<ConnectionDialog> self(this);
    QThread *thread = QThread::create([self, s] {
        RedisError error;
        const QList<SentinelResolver::Master> masters = SentinelResolver::masters(s, &error);
        QMetaObject::invokeMethod(qApp, [self, masters, error] {
            if (self)
                self->showMasters(masters, error);
        });
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void ConnectionDialog::showMasters(const QList<SentinelResolver::Master> &masters, const RedisError &error)
{
    m_listing = false;
    const QString typed = m_ui->masterCombo->currentText();
    m_ui->masterCombo->clear();
    QStringList lines;
    for (const SentinelResolver::Master &m : masters) {
        m_ui->masterCombo->addItem(m.name);
        lines << tr("%1 at %2 (%3)").arg(m.name, m.endpoint(), m.flags);
    }
    if (!typed.isEmpty() && m_ui->masterCombo->findText(typed) >= 0)
        m_ui->masterCombo->setCurrentText(typed);
    updateState();
    if (error) {
        m_ui->testResult->setText(tr("✘ %1").arg(error.message()));
        m_ui->testResult->setStyleSheet(QString::fromLatin1(kProblemStyle));
    } else {
        m_ui->testResult->setText(lines.isEmpty() ? tr("The sentinels monitor no master.")
                                                  : tr("Masters: %1").arg(lines.join(QStringLiteral("; "))));
        m_ui->testResult->setStyleSheet(QString());
    }
}

void ConnectionDialog::setKeychainUnavailable(const QString &why)
{
    auto *model = qobject_cast<QStandardItemModel *>(m_ui->passwordStorageCombo->model());
    if (QStandardItem *item = model ? model->item(int(Storage::Keychain)) : nullptr) {
        item->setEnabled(false);
        item->setToolTip(tr("No system keychain here: %1").arg(why));
    }
    // A new profile is not offered it; a saved keychain profile keeps its choice (it may come from a machine
    // that has one) — the disabled item and its tooltip say why its password will be asked for.
    if (Storage(m_ui->passwordStorageCombo->currentIndex()) == Storage::Keychain && !m_hasSavedPassword)
        m_ui->passwordStorageCombo->setCurrentIndex(int(Storage::Ask));
}

void ConnectionDialog::runTest()
{
    const ConnectionSettings typed = settings();
    if (m_mode == Mode::EditProfile && typed.password.isEmpty() && m_credentials) {
        const ConnectionProfile p = profile();
        if (p.needsPassword()) { // the saved password, or ask for it
            m_testButton->setEnabled(false);
            m_credentials->resolve(
                p, this,
                [this](const std::optional<ConnectionSettings> &resolved) {
                    if (resolved)
                        testWith(*resolved);
                    else
                        m_testButton->setEnabled(true);
                },
                PasswordPrompt::Purpose::Test);
            return;
        }
    }
    testWith(typed);
}

void ConnectionDialog::testWith(const ConnectionSettings &settings)
{
    m_testButton->setEnabled(false);
    m_ui->testResult->setStyleSheet(QString());
    m_ui->testResult->setText(tr("Connecting to %1…").arg(settings.describe()));
    m_tester->open(settings);
}
