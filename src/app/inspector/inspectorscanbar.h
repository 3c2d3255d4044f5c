// The Inspector's scan row: the SCAN patterns and the lock-name patterns (remembered between sessions),
// Formats…, Scan/Stop, the scan's progress (bar and words), Add Sample Locks (sandbox only) and Export….
// Laid out to fit a 1024 px window: the progress words give way first. The place wires what they do.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

class InspectorScanBar : public QWidget
{
    Q_OBJECT
public:
    explicit InspectorScanBar(QWidget *parent = nullptr);

    QLineEdit *patterns() const { return m_patterns; }
    QLineEdit *lockNames() const { return m_lockNames; }
    QPushButton *formatsButton() const { return m_formats; }
    QPushButton *scanButton() const { return m_scan; }
    QProgressBar *progress() const { return m_progress; }
    QLabel *progressText() const { return m_progressText; }
    QPushButton *sampleLocksButton() const { return m_sampleLocks; }
    QPushButton *exportButton() const { return m_export; }

private:
    QLineEdit *m_patterns = nullptr;
    QLineEdit *m_lockNames = nullptr;
    QPushButton *m_formats = nullptr;
    QPushButton *m_scan = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_progressText = nullptr;
    QPushButton *m_sampleLocks = nullptr;
    QPushButton *m_export = nullptr;
};
