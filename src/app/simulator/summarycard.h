// One summary card of the Simulator: a caption, a big value and a detail line; clickable when it leads
// somewhere (the violations card jumps the timeline to the first violation).
#pragma once

#include <QFrame>

class QLabel;

class SummaryCard : public QFrame
{
    Q_OBJECT
public:
    enum class Tone { Normal, Good, Bad };

    SummaryCard(const QString &caption, const QString &toolTip, QWidget *parent = nullptr);

    void setValue(const QString &value, const QString &detail = QString(), Tone tone = Tone::Normal);
    void setClickable(bool on);
    // Compact (a short window): caption and value only; the detail line moves into the tooltip.
    void setCompact(bool compact);
    QString value() const;
    QString detail() const;
    Tone tone() const { return m_tone; }

signals:
    void clicked();

protected:
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void restyle();

    QLabel *m_caption = nullptr;
    QLabel *m_value = nullptr;
    QLabel *m_detail = nullptr;
    Tone m_tone = Tone::Normal;
    QString m_toolTip; // what the card is; the detail joins it when compact
    bool m_compact = false;
    bool m_clickable = false;
    bool m_styling = false;
};
