// A combo box that shortens its current text with "…" when the box is narrower than the text (QComboBox
// cuts it off mid-letter), and says the whole text in its tooltip.
#pragma once

#include <QComboBox>

class ElidingComboBox : public QComboBox
{
    Q_OBJECT
public:
    explicit ElidingComboBox(QWidget *parent = nullptr);

    // The text shown in the box at its present width.
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent *event) override;
};
