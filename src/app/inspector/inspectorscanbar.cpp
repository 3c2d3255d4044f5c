// InspectorScanBar: the widgets of the row, and the patterns read back from the settings.
#include "inspectorscanbar.h"

#include "common/appsettings.h"
#include "inspect/scanoptions.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>

InspectorScanBar::InspectorScanBar(QWidget *parent)
    : QWidget(parent)
{
    auto *scanRow = new QHBoxLayout(this);
    scanRow->setContentsMargins(0, 0, 0, 0);
    scanRow->addWidget(new QLabel(tr("Keys:"), this));
    m_patterns = new QLineEdit(QStringLiteral("*"), this);
    m_patterns->setObjectName(QStringLiteral("patterns"));
    m_patterns->setPlaceholderText(tr("*  (every key)"));
    m_patterns->setToolTip(tr(
        "SCAN MATCH patterns, separated by spaces. \"*\" scans every key and lists those that look like "
        "locks "
        "(by their data, or a name with lock/mutex in it); any other pattern lists every key it matches."));
    m_patterns->setMaximumWidth(260);
    scanRow->addWidget(m_patterns, 1);
    scanRow->addWidget(new QLabel(tr("Lock names:"), this));
    QStringList lockNames;
    for (const QByteArray &p : ScanOptions::defaultLockNamePatterns())
        lockNames << QString::fromUtf8(p);
    m_lockNames = new QLineEdit(lockNames.join(u' '), this);
    m_lockNames->setObjectName(QStringLiteral("lockNamePatterns"));
    m_lockNames->setToolTip(
        tr("With \"*\", keys whose name matches one of these patterns are listed even when their "
           "data fits no lock format (as \"unknown\", with why). Separated by spaces."));
    m_lockNames->setMaximumWidth(300);
    scanRow->addWidget(m_lockNames, 1);
    m_formats = new QPushButton(tr("Formats…"), this);
    m_formats->setObjectName(QStringLiteral("formatsButton"));
    m_formats->setToolTip(
        tr("The lock formats recognised (built in and your own), and problems in your files"));
    scanRow->addWidget(m_formats);
    // The patterns are remembered between sessions (they describe the user's naming conventions).
    AppSettings settings;
    m_patterns->setText(settings.value(QStringLiteral("inspector/patterns"), m_patterns->text()).toString());
    m_lockNames->setText(
        settings.value(QStringLiteral("inspector/lockNamePatterns"), m_lockNames->text()).toString());
    m_lockNames->setCursorPosition(0); // the first words show, not the last
    m_scan = new QPushButton(tr("Scan"), this);
    m_scan->setObjectName(QStringLiteral("scanButton"));
    m_scan->setToolTip(tr("Scan the server again (F5): SCAN page by page, paced so that other clients "
                          "barely notice it; never KEYS"));
    scanRow->addWidget(m_scan);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setFixedWidth(100);
    scanRow->addWidget(m_progress);
    m_progressText = new QLabel(this);
    // The progress text gives way (cut) before the buttons do: the window must fit 1024 px.
    m_progressText->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_progressText->setMinimumWidth(60);
    scanRow->addWidget(m_progressText, 2);
    m_sampleLocks = new QPushButton(tr("Add Sample Locks"), this);
    m_sampleLocks->setToolTip(tr("Write a few locks of every kind (demo:*) into the sandbox server"));
    m_sampleLocks->setVisible(false);
    scanRow->addWidget(m_sampleLocks);
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setObjectName(QStringLiteral("exportTable"));
    m_export->setToolTip(tr("Save the rows shown (after the filters) as CSV or JSON; the JSON is the same as "
                            "lockscope-cli inspect --json writes for each lock"));
    scanRow->addWidget(m_export);
}
