// ProfilesDialog: a list of ProfileStore's profiles; editing goes through ConnectionDialog in profile mode
// and passwords through ProfileCredentials.
#include "profilesdialog.h"

#include "connectiondialog.h"
#include "outputfile.h"
#include "profilecredentials.h"
#include "profiles/profilestore.h"
#include "profiles/secretstore.h"
#include "redis/redissession.h"
#include "ui_profilesdialog.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QStandardPaths>

namespace {

QIcon swatch(const QString &color)
{
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color.isEmpty() ? QColor(0x94a3b8) : QColor(color));
    painter.drawRoundedRect(QRectF(2, 2, 12, 12), 3, 3);
    return QIcon(pixmap);
}

QString row(const QString &name, const QString &value)
{
    return QStringLiteral("<tr><td style='color: palette(mid); padding-right: 8px;'>%1</td><td>%2</td></tr>")
        .arg(name.toHtmlEscaped(), value);
}

} // namespace

ProfilesDialog::ProfilesDialog(ProfileCredentials *credentials, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ProfilesDialog>())
    , m_credentials(credentials)
{
    m_ui->setupUi(this);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Connect"));
    m_tester = new RedisSession(this);
    connect(m_tester, &RedisSession::opened, this, [this](const ServerInfo &info) {
        setStatus(tr("✔ %1: %2 · round trip %3 ms")
                      .arg(m_testing, info.summary(), QString::number(info.roundTripMs, 'f', 2)),
                  QStringLiteral("#15803d"));
        m_tester->close();
        updateButtons();
    });
    connect(m_tester, &RedisSession::failed, this, [this](const RedisError &error) {
        setStatus(tr("✘ %1: %2").arg(m_testing, error.message()), QStringLiteral("#b91c1c"));
        updateButtons();
    });

    connect(m_ui->profileList, &QListWidget::itemSelectionChanged, this, [this] {
        showDetails();
        updateButtons();
    });
    connect(m_ui->profileList, &QListWidget::itemDoubleClicked, this, [this] {
        if (const auto p = selectedProfile()) {
            emit connectRequested(*p);
            accept();
        }
    });
    connect(m_ui->newButton, &QPushButton::clicked, this, &ProfilesDialog::newProfile);
    connect(m_ui->editButton, &QPushButton::clicked, this, &ProfilesDialog::editSelected);
    connect(m_ui->duplicateButton, &QPushButton::clicked, this, &ProfilesDialog::duplicateSelected);
    connect(m_ui->deleteButton, &QPushButton::clicked, this, &ProfilesDialog::deleteSelected);
    connect(m_ui->testButton, &QPushButton::clicked, this, &ProfilesDialog::testSelected);
    connect(m_ui->exportButton, &QPushButton::clicked, this, &ProfilesDialog::exportSelected);
    connect(m_ui->importButton, &QPushButton::clicked, this, &ProfilesDialog::importFile);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, [this] {
        if (const auto p = selectedProfile()) {
            emit connectRequested(*p);
            accept();
        }
    });

    m_ui->keychainLabel->setText(tr("Checking for a system keychain…"));
    m_credentials->secrets()->probe(this, [this](const SecretStore::Result &r) {
        if (r.ok()) {
            m_ui->keychainLabel->setText(
                tr("Saved passwords are kept in the system keychain, never in LockScope's "
                   "files (%1).")
                    .arg(m_credentials->store()->filePath()));
            m_ui->keychainLabel->setStyleSheet(QStringLiteral("color: palette(mid);"));
        } else {
            m_noKeychain = r.error.isEmpty() ? tr("none answered") : r.error;
            if (m_editor)
                m_editor->setKeychainUnavailable(m_noKeychain);
            m_ui->keychainLabel->setText(
                tr("⚠ %1: passwords will be asked for at every connection, and never written "
                   "to disk.")
                    .arg(r.error.left(1).toUpper() + r.error.mid(1)));
            m_ui->keychainLabel->setStyleSheet(QStringLiteral("color: #92400e;"));
        }
    });
    reload();
}

ProfilesDialog::~ProfilesDialog() = default;

void ProfilesDialog::reload(const QString &selectId)
{
    const QString keep = selectId.isEmpty() && selectedProfile() ? selectedProfile()->id : selectId;
    m_ui->profileList->clear();
    ProfileStore *store = m_credentials->store();
    for (const ConnectionProfile &p : store->profiles()) {
        auto *item = new QListWidgetItem(swatch(p.color),
                                         p.production ? tr("%1  · PRODUCTION").arg(p.name) : p.name);
        item->setData(Qt::UserRole, p.id);
        item->setData(Qt::UserRole + 1, QVariant::fromValue(p));
        item->setToolTip(p.summary());
        m_ui->profileList->addItem(item);
    }
    if (!store->warnings().isEmpty())
        setStatus(store->warnings().join(u'\n'), QStringLiteral("#92400e"));
    if (!keep.isEmpty())
        selectProfile(keep);
    if (!m_ui->profileList->currentItem() && m_ui->profileList->count() > 0)
        m_ui->profileList->setCurrentRow(0);
    showDetails();
    updateButtons();
}

int ProfilesDialog::profileCount() const
{
    return m_ui->profileList->count();
}

void ProfilesDialog::selectProfile(const QString &id)
{
    for (int i = 0; i < m_ui->profileList->count(); ++i) {
        if (m_ui->profileList->item(i)->data(Qt::UserRole).toString() == id) {
            m_ui->profileList->setCurrentRow(i, QItemSelectionModel::ClearAndSelect);
            return;
        }
    }
}

std::optional<ConnectionProfile> ProfilesDialog::selectedProfile() const
{
    const QList<ConnectionProfile> all = selectedProfiles();
    return all.size() == 1 ? std::optional(all.first()) : std::nullopt;
}

QList<ConnectionProfile> ProfilesDialog::selectedProfiles() const
{
    QList<ConnectionProfile> list;
    for (QListWidgetItem *item : m_ui->profileList->selectedItems())
        list << item->data(Qt::UserRole + 1).value<ConnectionProfile>();
    return list;
}

void ProfilesDialog::updateButtons()
{
    const bool one = selectedProfile().has_value();
    m_ui->editButton->setEnabled(one);
    m_ui->duplicateButton->setEnabled(one);
    m_ui->deleteButton->setEnabled(one);
    m_ui->testButton->setEnabled(one && !m_tester->isBusy());
    m_ui->exportButton->setEnabled(!selectedProfiles().isEmpty());
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(one);
}

void ProfilesDialog::showDetails()
{
    const std::optional<ConnectionProfile> p = selectedProfile();
    if (!p) {
        m_ui->detailsLabel->setText(
            m_ui->profileList->count() == 0
                ? tr("<p>No saved profiles yet.</p><p>Use <b>New…</b> to save a server you "
                     "connect to often, with its TLS and SSH settings; the password goes to "
                     "the system keychain.</p>")
                : QString());
        return;
    }
    const ConnectionSettings &s = p->settings;
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(p->name.toHtmlEscaped());
    html += row(tr("Server"), s.endpoint().toHtmlEscaped() + (s.db ? tr(" · db %1").arg(s.db) : QString()));
    html += row(tr("User"), s.user.isEmpty() ? tr("default user") : s.user.toHtmlEscaped());
    html += row(tr("Password"),
                p->passwordStorage == ConnectionProfile::PasswordStorage::Keychain
                    ? tr("in the system keychain")
                    : p->passwordStorage == ConnectionProfile::PasswordStorage::Ask ? tr("asked every time")
                                                                                    : tr("none"));
    html += row(tr("TLS"),
                !s.tls.enabled         ? tr("off")
                    : s.tls.verifyPeer ? tr("on, certificate verified")
                                       : tr("<b style='color:#b45309'>on, certificate NOT verified</b>"));
    html += row(tr("SSH tunnel"),
                s.ssh.enabled ? tr("via %1").arg(s.ssh.destination().toHtmlEscaped()) : tr("none"));
    html += row(tr("Writes"),
                s.readOnly ? tr("refused (read-only)") : tr("<b style='color:#c2410c'>allowed</b>"));
    if (p->production)
        html += row(tr("Marked"), tr("<b style='color:#b91c1c'>PRODUCTION</b>"));
    html += row(tr("Lock patterns"),
                p->lockPatterns.isEmpty() ? tr("inspector defaults")
                                          : p->lockPatterns.join(QStringLiteral(", ")).toHtmlEscaped());
    html += row(tr("SCAN COUNT"), QString::number(p->scanCount));
    html += row(tr("Scan budget"),
                p->scanMaxOps > 0 ? tr("%1 commands/s").arg(p->scanMaxOps) : tr("none (paced scan)"));
    html += QStringLiteral("</table>");
    m_ui->detailsLabel->setText(html);
}

QString ProfilesDialog::detailsText() const
{
    return m_ui->detailsLabel->text();
}

QString ProfilesDialog::statusText() const
{
    return m_ui->testResult->text();
}

QString ProfilesDialog::keychainText() const
{
    return m_ui->keychainLabel->text();
}

void ProfilesDialog::setStatus(const QString &text, const QString &color)
{
    m_ui->testResult->setText(text);
    m_ui->testResult->setStyleSheet(color.isEmpty() ? QString() : QStringLiteral("color: %1;").arg(color));
}

void ProfilesDialog::newProfile()
{
    ConnectionProfile p = ConnectionProfile::create(m_credentials->store()->uniqueName(tr("New profile")));
    openEditor(p, true);
}

void ProfilesDialog::editSelected()
{
    if (const auto p = selectedProfile())
        openEditor(*p, false);
}

void ProfilesDialog::openEditor(const ConnectionProfile &profile, bool isNew)
{
    if (m_editor)
        return;
    m_editor = new ConnectionDialog(this, ConnectionDialog::Mode::EditProfile);
    m_editor->setAttribute(Qt::WA_DeleteOnClose);
    m_editor->setCredentials(m_credentials);
    m_editor->setProfile(profile);
    if (!m_noKeychain.isEmpty())
        m_editor->setKeychainUnavailable(m_noKeychain);
    if (isNew)
        m_editor->setWindowTitle(tr("New connection profile"));
    connect(m_editor, &QDialog::finished, this, [this](int result) {
        ConnectionDialog *editor = m_editor;
        m_editor = nullptr;
        if (result != QDialog::Accepted)
            return;
        m_credentials->save(
            editor->profile(), editor->typedPassword(), [this](const ProfileCredentials::Saved &saved) {
                if (!saved.profile) {
                    setStatus(tr("✘ Not saved: %1").arg(saved.error), QStringLiteral("#b91c1c"));
                    return;
                }
                reload(saved.profile->id);
                setStatus(saved.notice.isEmpty() ? tr("Saved '%1'.").arg(saved.profile->name) : saved.notice,
                          saved.notice.isEmpty() ? QString() : QStringLiteral("#92400e"));
            });
    });
    m_editor->open();
}

void ProfilesDialog::duplicateSelected()
{
    const auto p = selectedProfile();
    if (!p)
        return;
    m_credentials->duplicate(*p, [this](const ProfileCredentials::Saved &saved) {
        if (!saved.profile) {
            setStatus(tr("✘ %1").arg(saved.error), QStringLiteral("#b91c1c"));
            return;
        }
        reload(saved.profile->id);
        setStatus(tr("Duplicated as '%1'.").arg(saved.profile->name));
    });
}

void ProfilesDialog::deleteSelected()
{
    const auto p = selectedProfile();
    if (!p)
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Delete profile"),
                                tr("Delete the profile '%1' and its saved password?").arg(p->name),
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("deleteConfirmation"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, profile = *p](int result) {
        if (result != QMessageBox::Yes)
            return;
        m_credentials->remove(profile, [this, name = profile.name](const QString &error) {
            if (!error.isEmpty()) {
                setStatus(tr("✘ %1").arg(error), QStringLiteral("#b91c1c"));
                return;
            }
            reload();
            setStatus(tr("Deleted '%1'.").arg(name));
        });
    });
    box->open();
}

void ProfilesDialog::testSelected()
{
    const auto p = selectedProfile();
    if (!p)
        return;
    m_testing = p->name;
    m_ui->testButton->setEnabled(false);
    setStatus(tr("Testing %1…").arg(p->summary()));
    m_credentials->resolve(
        *p, this,
        [this](const std::optional<ConnectionSettings> &settings) {
            if (!settings) {
                setStatus(tr("Test cancelled."));
                updateButtons();
                return;
            }
            m_tester->open(*settings);
        },
        PasswordPrompt::Purpose::Test);
}

bool ProfilesDialog::exportTo(const QString &path, QString *error)
{
    const QList<ConnectionProfile> profiles = selectedProfiles();
    QString reason;
    if (!OutputFile::writeWhole(path, ProfileStore::exportJson(profiles), &reason)) {
        *error = tr("cannot write %1: %2").arg(path, reason);
        return false;
    }
    setStatus(
        tr("Exported %n profile(s) to %1, without passwords.", nullptr, int(profiles.size())).arg(path));
    return true;
}

bool ProfilesDialog::importFrom(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    const QList<ConnectionProfile> added = m_credentials->store()->importJson(file.readAll(), error);
    if (!error->isEmpty())
        return false;
    reload(added.isEmpty() ? QString() : added.first().id);
    setStatus(tr("Imported %n profile(s) from %1. Passwords do not travel: they will be asked for.", nullptr,
                 int(added.size()))
                  .arg(path));
    return true;
}

void ProfilesDialog::exportSelected()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export profiles"),
                                       // The user's documents, not wherever the app was started from.
                                       QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                                           .filePath(QStringLiteral("lockscope-profiles.json")),
                                       tr("LockScope profiles (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportTo(path, &error))
        setStatus(tr("✘ %1").arg(error), QStringLiteral("#b91c1c"));
}

void ProfilesDialog::importFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import profiles"),
                                                      QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation),
                                                      tr("LockScope profiles (*.json);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !importFrom(path, &error))
        setStatus(tr("✘ Nothing imported: %1").arg(error), QStringLiteral("#b91c1c"));
}
