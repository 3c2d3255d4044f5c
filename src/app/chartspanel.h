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
class QBarCategoryAxis;
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
    static constexpr int kMinChartWidth = 200;
    static constexpr int kMinChartHeight = 110;
    QChartView *makeView(QChart *chart);
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
    QBarCategoryAxis *m_latencyX = nullptr;
    QValueAxis *m_latencyY = nullptr;
    QBarSet *m_perWorker = nullptr;
    QBarSeries *m_perWorkerSeries = nullptr;
    QBarCategoryAxis *m_perWorkerX = nullptr;
    QValueAxis *m_perWorkerY = nullptr;
    QStringList m_workerNames;
};
