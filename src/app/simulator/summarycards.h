// The row of summary cards over a run: throughput, latency, hand-off, fairness, renewals, lease expiries,
// violations (red, click to see them on the timeline) and the scenario's expectations.
#pragma once

#include "livestats.h"
#include "sim/expectation.h"

#include <QWidget>

class QGridLayout;
class SummaryCard;

class SummaryCards : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryCards(QWidget *parent = nullptr);

    void clear();
    void setStats(const LiveStats &stats, int expiries);
    // After the run: how the expectations came out (empty: the scenario has none).
    void setChecks(const QList<Expectation::Check> &checks, bool complete);
    // Not shown yet (stepping before the story's end), and why.
    void setChecksPending(const QString &why);

    // Compact (a short window): one row of captions and values, details in the tooltips.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    SummaryCard *violationsCard() const { return m_violations; }
    SummaryCard *card(const QString &name) const;
    QSize minimumSizeHint() const override;

signals:
    void violationsClicked();
    void expectationsClicked();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void reflow(int columns);
    int columnsFor(int width) const;

    QGridLayout *m_grid = nullptr;
    int m_columns = 0;
    bool m_compact = false;
    SummaryCard *m_throughput = nullptr;
    SummaryCard *m_latency = nullptr;
    SummaryCard *m_handoff = nullptr;
    SummaryCard *m_fairness = nullptr;
    SummaryCard *m_renewals = nullptr;
    SummaryCard *m_expiries = nullptr;
    SummaryCard *m_violations = nullptr;
    SummaryCard *m_expect = nullptr;
};
