// ConnectionDialog: binds the form to ConnectionSettings; "Test" connects on a background session.
#include "connectiondialog.h"

#include "redis/redissession.h"
#include "ui_connectiondialog.h"

#include <QPushButton>

ConnectionDialog::ConnectionDialog(QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ConnectionDialog>())
{
    m_ui->setupUi(this);
    m_ui->writeWarning->setStyleSheet(QStringLiteral("color: #c2410c; font-weight: 600;"));
    m_testButton = m_ui->buttonBox->addButton(tr("&Test"), QDialogButtonBox::ActionRole);
    m_testButton->setToolTip(
        tr("Connect once with these settings and report the server's version and latency"));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Connect"));

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
        m_ui->testResult->setStyleSheet(QStringLiteral("color: #b91c1c;"));
        m_testButton->setEnabled(true);
    });
    connect(m_testButton, &QPushButton::clicked, this, &ConnectionDialog::runTest);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, [this] {
        if (settings().validate().isEmpty())
            accept();
    });

    for (QLineEdit *edit : {m_ui->hostEdit, m_ui->socketEdit, m_ui->userEdit, m_ui->passwordEdit})
        connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::updateState);
    for (QAbstractButton *button :
         {static_cast<QAbstractButton *>(m_ui->tcpRadio), static_cast<QAbstractButton *>(m_ui->socketRadio),
          static_cast<QAbstractButton *>(m_ui->readOnlyCheck)})
        connect(button, &QAbstractButton::toggled, this, &ConnectionDialog::updateState);
    updateState();
}

ConnectionDialog::~ConnectionDialog() = default;

void ConnectionDialog::setSettings(const ConnectionSettings &s)
{
    m_ui->socketRadio->setChecked(s.usesSocket());
    m_ui->tcpRadio->setChecked(!s.usesSocket());
    m_ui->hostEdit->setText(s.host);
    m_ui->portSpin->setValue(s.port);
    m_ui->socketEdit->setText(s.socketPath);
    m_ui->dbSpin->setValue(s.db);
    m_ui->userEdit->setText(s.user);
    m_ui->passwordEdit->setText(s.password);
    m_ui->readOnlyCheck->setChecked(s.readOnly);
    m_ui->connectTimeoutSpin->setValue(s.connectTimeoutMs);
    m_ui->commandTimeoutSpin->setValue(s.commandTimeoutMs);
    updateState();
}

ConnectionSettings ConnectionDialog::settings() const
{
    ConnectionSettings s;
    s.host = m_ui->hostEdit->text().trimmed();
    s.port = m_ui->portSpin->value();
    s.socketPath = m_ui->socketRadio->isChecked() ? m_ui->socketEdit->text().trimmed() : QString();
    s.db = m_ui->dbSpin->value();
    s.user = m_ui->userEdit->text().trimmed();
    s.password = m_ui->passwordEdit->text();
    s.readOnly = m_ui->readOnlyCheck->isChecked();
    s.connectTimeoutMs = m_ui->connectTimeoutSpin->value();
    s.commandTimeoutMs = m_ui->commandTimeoutSpin->value();
    return s;
}

QString ConnectionDialog::statusText() const
{
    return m_ui->testResult->text();
}

void ConnectionDialog::updateState()
{
    const bool socket = m_ui->socketRadio->isChecked();
    m_ui->hostEdit->setEnabled(!socket);
    m_ui->portSpin->setEnabled(!socket);
    m_ui->socketEdit->setEnabled(socket);
    m_ui->writeWarning->setVisible(!m_ui->readOnlyCheck->isChecked());
    const ConnectionSettings s = settings();
    QString problem = s.validate();
    if (socket && s.socketPath.isEmpty())
        problem = tr("Give the path of the server's Unix socket.");
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    m_testButton->setEnabled(problem.isEmpty());
    m_ui->testResult->setText(problem);
    m_ui->testResult->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("color: #b91c1c;"));
}

void ConnectionDialog::runTest()
{
    m_testButton->setEnabled(false);
    m_ui->testResult->setStyleSheet(QString());
    m_ui->testResult->setText(tr("Connecting to %1…").arg(settings().endpoint()));
    m_tester->open(settings());
}
