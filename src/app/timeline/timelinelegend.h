// The key under the timeline: what each colour and mark means.
#pragma once

#include <QWidget>

class TimelineLegend : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineLegend(QWidget *parent = nullptr);
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    // Redlock runs: also explain the vote cells under each round.
    void setShowsVotes(bool votes);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    int layoutWidth() const;

    bool m_votes = false;
};
