// The Simulator's four charts (QtCharts): acquisitions per second over time, waiting workers over time, the
// acquire-latency histogram and acquisitions per worker (fairness at a glance). Fed with LiveStats about once
// a second; series are replaced, never appended to per event.
#pragma once

#include "livestats.h"

#include <QStringList>
#include <QWidget>

class QChart;
class QChartView;
class QGridLayout;
class QLineSeries;
class QAreaSeries;
class QBarSet;
class QBarSeries;
class QCategoryAxis;
class QValueAxis;

class ChartsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ChartsPanel(QWidget *parent = nullptr);

    void clear();
    // Updates every chart; `axisUs` is the time axis length (the planned run or what has run so far).
    void setStats(const LiveStats &stats, const QStringList &workerNames, qint64 axisUs);
    // Paints the four charts in a 2×2 grid into `painter` (exports).
    void paintExport(QPainter &painter, const QSize &size);
    QSize exportSize() const { return QSize(1200, 800); }

    // For tests: the values shown.
    QList<QPointF> throughputPoints() const;
    QList<qreal> perWorkerValues() const;

    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    static constexpr int kMinChartWidth = 120;
    static constexpr int kMinChartHeight = 110;
    static constexpr int kAxisTitleHeight = 130; // charts shorter than this leave out their x axis's title
    QChartView *makeView(QChart *chart);
    bool eventFilter(QObject *watched, QEvent *event) override;
    // A chart's titles, longest first, and what it shows: the longest title that fits its width is shown,
    // the whole one is in its tooltip.
    void setTitles(int chart, const QStringList &titles);
    void fitTitle(int chart);
    void fitAxisTitle(int chart);
    // Ticks on a run-time axis (0: throughput, 1: waiting): as many as 5 when their labels fit side by side.
    void fitTimeTicks(int chart);
    // Labels under a bar chart's bars: every one when they fit side by side, else every second, third…
    void labelBars(int chart);
    // Four charts in a 2×2 grid, or in one row when the panel is short.
    void arrange(bool oneRow);
    QGridLayout *m_grid = nullptr;
    bool m_oneRow = false;
    void applyTheme();

    QChartView *m_views[4] = {};
    QLineSeries *m_throughput = nullptr;
    QAreaSeries *m_throughputArea = nullptr;
    QValueAxis *m_throughputX = nullptr;
    QValueAxis *m_throughputY = nullptr;
    QLineSeries *m_waiting = nullptr;
    QAreaSeries *m_waitingArea = nullptr;
    QValueAxis *m_waitingX = nullptr;
    QValueAxis *m_waitingY = nullptr;
    QBarSet *m_latency = nullptr;
    QBarSeries *m_latencySeries = nullptr;
    QCategoryAxis *m_latencyX = nullptr;
    QValueAxis *m_latencyY = nullptr;
    QBarSet *m_perWorker = nullptr;
    QBarSeries *m_perWorkerSeries = nullptr;
    QCategoryAxis *m_perWorkerX = nullptr;
    QValueAxis *m_perWorkerY = nullptr;
    QStringList m_workerNames;
    QStringList m_titles[4];
    QString m_explanations[4];
    QStringList m_barLabels[4]; // the bar charts' (2 and 3) categories, all of them
    int m_labelStep[4] = {};
};
