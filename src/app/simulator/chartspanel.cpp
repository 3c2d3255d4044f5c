// ChartsPanel: QtCharts set-up, themed from the widget palette; updates by replace().
#include "chartspanel.h"

#include "common/timelinepalette.h"

#include <QAreaSeries>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QGridLayout>
#include <QLineSeries>
#include <QValueAxis>

namespace {

// Run-time axes: the unit on every label, so the axis needs no title when a chart is short.
constexpr char kTimeFormat[] = "%.1f s";

double niceMax(double value)
{
    if (value <= 0)
        return 1;
    if (value <= 5)
        return std::ceil(value); // small counts: whole-number ticks

    const double base = std::pow(10.0, std::floor(std::log10(value)));
    for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
        if (base * m >= value * 1.05)
            return base * m;
    }
    return base * 10;
}

// Ticks on whole numbers for counts.
void setCountRange(QValueAxis *axis, double peak)
{
    const double top = niceMax(peak);
    if (top <= 5) {
        axis->setRange(0, top);
        axis->setTickCount(int(top) + 1);
    } else {
        axis->setTickCount(5);
        axis->setRange(0, peak * 1.05);
        axis->applyNiceNumbers();
    }
}

QChart *newChart(const QString &title)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(6);
    return chart;
}

} // namespace

ChartsPanel::ChartsPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);

    // Acquisitions per second.
    QChart *throughput = newChart(tr("Acquisitions per second"));
    m_throughput = new QLineSeries;
    m_throughputArea = new QAreaSeries(m_throughput);
    // An area series does not own its line (ASan's leak check caught both lines leaking): it does now.
    m_throughput->setParent(m_throughputArea);
    throughput->addSeries(m_throughputArea);
    m_throughputX = new QValueAxis;
    m_throughputX->setTitleText(tr("run time"));
    m_throughputX->setLabelFormat(QLatin1String(kTimeFormat));
    m_throughputY = new QValueAxis;
    m_throughputY->setLabelFormat(QStringLiteral("%.0f"));
    throughput->addAxis(m_throughputX, Qt::AlignBottom);
    throughput->addAxis(m_throughputY, Qt::AlignLeft);
    m_throughputArea->attachAxis(m_throughputX);
    m_throughputArea->attachAxis(m_throughputY);

    // Waiting workers.
    QChart *waiting = newChart(tr("Workers waiting for the lock"));
    m_waiting = new QLineSeries;
    m_waitingArea = new QAreaSeries(m_waiting);
    m_waiting->setParent(m_waitingArea);
    waiting->addSeries(m_waitingArea);
    m_waitingX = new QValueAxis;
    m_waitingX->setTitleText(tr("run time"));
    m_waitingX->setLabelFormat(QLatin1String(kTimeFormat));
    m_waitingY = new QValueAxis;
    m_waitingY->setLabelFormat(QStringLiteral("%.0f"));
    waiting->addAxis(m_waitingX, Qt::AlignBottom);
    waiting->addAxis(m_waitingY, Qt::AlignLeft);
    m_waitingArea->attachAxis(m_waitingX);
    m_waitingArea->attachAxis(m_waitingY);

    // Acquire latency histogram.
    QChart *latency = newChart(tr("Acquire latency (waiting included)"));
    m_latency = new QBarSet(tr("acquisitions"));
    m_latencySeries = new QBarSeries;
    m_latencySeries->append(m_latency);
    m_latencySeries->setBarWidth(0.9);
    latency->addSeries(m_latencySeries);
    m_latencyX = new QCategoryAxis;
    m_latencyX->setTitleText(tr("waited up to"));
    m_latencyY = new QValueAxis;
    m_latencyY->setLabelFormat(QStringLiteral("%.0f"));
    latency->addAxis(m_latencyX, Qt::AlignBottom);
    latency->addAxis(m_latencyY, Qt::AlignLeft);
    m_latencySeries->attachAxis(m_latencyX);
    m_latencySeries->attachAxis(m_latencyY);

    // Acquisitions per worker.
    QChart *perWorker = newChart(tr("Acquisitions per worker"));
    m_perWorker = new QBarSet(tr("acquisitions"));
    m_perWorkerSeries = new QBarSeries;
    m_perWorkerSeries->append(m_perWorker);
    m_perWorkerSeries->setBarWidth(0.8);
    perWorker->addSeries(m_perWorkerSeries);
    m_perWorkerX = new QCategoryAxis;
    m_perWorkerY = new QValueAxis;
    m_perWorkerY->setLabelFormat(QStringLiteral("%.0f"));
    perWorker->addAxis(m_perWorkerX, Qt::AlignBottom);
    perWorker->addAxis(m_perWorkerY, Qt::AlignLeft);
    m_perWorkerSeries->attachAxis(m_perWorkerX);
    m_perWorkerSeries->attachAxis(m_perWorkerY);

    m_views[0] = makeView(throughput);
    m_views[1] = makeView(waiting);
    m_views[2] = makeView(latency);
    m_views[3] = makeView(perWorker);
    m_explanations[0] = tr("How many times per second some worker got the lock");
    m_explanations[1] = tr("The most workers waiting at once, per time slice");
    m_explanations[2] = tr("Time from asking for the lock to getting it, in bins");
    m_explanations[3] = tr("Even bars mean a fair lock; Jain's index in the title (1 = perfectly even)");
    setTitles(0, {tr("Acquisitions per second"), tr("Acquisitions/s")});
    setTitles(1, {tr("Workers waiting for the lock"), tr("Waiting workers"), tr("Waiting")});
    setTitles(2, {tr("Acquire latency (waiting included)"), tr("Acquire latency"), tr("Latency")});
    for (int i = 0; i < 4; ++i)
        m_views[i]->installEventFilter(this);
    // How many labels an x axis can show depends on the room its plot area has.
    for (int i : {0, 1})
        connect(m_views[i]->chart(), &QChart::plotAreaChanged, this, [this, i] { fitTimeTicks(i); });
    for (int i : {2, 3})
        connect(m_views[i]->chart(), &QChart::plotAreaChanged, this, [this, i] { labelBars(i); });
    for (QCategoryAxis *axis : {m_latencyX, m_perWorkerX}) {
        axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        axis->setGridLineVisible(false); // category lines would run through the bars' middles
    }
    m_grid = grid;
    grid->setSizeConstraint(QLayout::SetNoConstraint); // minimumSizeHint() says how small: one row
    arrange(false);
    applyTheme();
    clear();
}

void ChartsPanel::arrange(bool oneRow)
{
    m_oneRow = oneRow;
    for (int i = 0; i < 4; ++i) {
        m_grid->removeWidget(m_views[i]);
        m_grid->addWidget(m_views[i], oneRow ? 0 : i / 2, oneRow ? i : i % 2);
    }
}

// Two rows need twice a chart's least height; on a short screen (the Simulator at 700 px) the four charts
// go side by side instead of squeezing the timeline above them, so one row of four is the least.
QSize ChartsPanel::minimumSizeHint() const
{
    return QSize(4 * kMinChartWidth + 3 * m_grid->spacing(), kMinChartHeight);
}

void ChartsPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Short: one row, even when each chart is then narrower than it would like (four charts squeezed to half
    // their least height, two by two, showed nothing at all).
    const bool oneRow = height() < 2 * kMinChartHeight + m_grid->spacing() + 40;
    if (oneRow != m_oneRow)
        arrange(oneRow);
}

bool ChartsPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize) {
        for (int i = 0; i < 4; ++i) {
            if (watched != m_views[i])
                continue;
            fitTitle(i);
            fitAxisTitle(i);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ChartsPanel::setTitles(int chart, const QStringList &titles)
{
    m_titles[chart] = titles;
    // The whole title, what the chart shows, and what runs across it (its axis title may be hidden).
    QString across;
    for (QAbstractAxis *axis : m_views[chart]->chart()->axes(Qt::Horizontal))
        across = axis->titleText();
    m_views[chart]->setToolTip(
        QStringLiteral("<b>%1</b><br>%2")
            .arg(titles.value(0).toHtmlEscaped(), m_explanations[chart].toHtmlEscaped())
        + (across.isEmpty() ? QString() : tr("<br>Across: %1").arg(across.toHtmlEscaped())));
    fitTitle(chart);
}

void ChartsPanel::fitTitle(int chart)
{
    QChart *c = m_views[chart]->chart();
    const QFontMetricsF fm(c->titleFont());
    // QtCharts cuts a title too long for its chart at its end: a shorter wording reads better.
    const double room = m_views[chart]->width() - 24;
    QString title = m_titles[chart].value(m_titles[chart].size() - 1);
    for (const QString &t : m_titles[chart]) {
        if (fm.horizontalAdvance(t) <= room) {
            title = t;
            break;
        }
    }
    if (fm.horizontalAdvance(title) > room)
        title = fm.elidedText(title, Qt::ElideRight, room);
    if (c->title() != title)
        c->setTitle(title);
}

void ChartsPanel::fitAxisTitle(int chart)
{
    // A short chart has no room for its x axis's title under the labels: QtCharts would cut it to "…" or
    // draw the labels over it. The labels carry the unit; the tooltip says what the axis is. An empty
    // histogram's title went to the top of its chart, over the chart's own.
    const bool empty = (chart == 2 || chart == 3) && m_barLabels[chart].isEmpty();
    for (QAbstractAxis *axis : m_views[chart]->chart()->axes(Qt::Horizontal))
        axis->setTitleVisible(m_views[chart]->height() >= kAxisTitleHeight && !empty);
}

void ChartsPanel::fitTimeTicks(int chart)
{
    QValueAxis *axis = chart == 0 ? m_throughputX : m_waitingX;
    // Labels are centred on their ticks: ticks as far apart as the widest label and a gap.
    const QFontMetricsF fm(axis->labelsFont());
    const double label = fm.horizontalAdvance(QString::asprintf(kTimeFormat, axis->max())) + 12;
    const int ticks = std::clamp(int(m_views[chart]->chart()->plotArea().width() / label) + 1, 2, 5);
    if (axis->tickCount() != ticks)
        axis->setTickCount(ticks);
}

void ChartsPanel::labelBars(int chart)
{
    fitAxisTitle(chart); // none while there are no bars
    QCategoryAxis *axis = chart == 2 ? m_latencyX : m_perWorkerX;
    const QStringList &labels = m_barLabels[chart];
    const int n = int(labels.size());
    const QFontMetricsF fm(axis->labelsFont());
    const double slot = m_views[chart]->chart()->plotArea().width() / std::max(1, n);
    // The smallest step at which neighbouring labels (with a gap) fit in the slots between them.
    int step = 1;
    const auto fits = [&](int k) {
        for (int i = 0; i + k < n; i += k) {
            if ((fm.horizontalAdvance(labels.at(i)) + fm.horizontalAdvance(labels.at(i + k))) / 2 + 8
                > k * slot)
                return false;
        }
        return true;
    };
    while (step < n && !fits(step))
        ++step;
    if (step == m_labelStep[chart] && axis->count() == (n + step - 1) / step)
        return;
    m_labelStep[chart] = step;
    for (const QString &label : axis->categoriesLabels())
        axis->remove(label);
    axis->setStartValue(-0.5);
    axis->setRange(-0.5, std::max(1, n) - 0.5);
    for (int i = 0; i < n; i += step)
        axis->append(labels.at(i), i);
}

QChartView *ChartsPanel::makeView(QChart *chart)
{
    auto *view = new QChartView(chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(kMinChartWidth, kMinChartHeight);
    return view;
}

void ChartsPanel::applyTheme()
{
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    const QColor window = palette().color(QPalette::Window);
    const QColor base = palette().color(QPalette::Base);
    for (QChartView *view : m_views) {
        QChart *chart = view->chart();
        chart->setTheme(tp.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        chart->setBackgroundBrush(base);
        chart->setBackgroundPen(QPen(tp.grid));
        chart->setPlotAreaBackgroundVisible(false);
        QFont title = font();
        title.setBold(true);
        chart->setTitleFont(title);
        chart->setTitleBrush(tp.text);
        for (QAbstractAxis *axis : chart->axes()) {
            QFont small = font();
            small.setPointSizeF(font().pointSizeF() * 0.85);
            axis->setLabelsFont(small);
            axis->setTitleFont(small);
            axis->setLabelsBrush(tp.mutedText);
            axis->setTitleBrush(tp.mutedText);
            axis->setGridLineColor(tp.grid);
            axis->setLinePenColor(tp.grid);
            // Small charts would otherwise show every label as "…": Qt truncates a label to the room it
            // computes per tick, which is too cautious at this height.
            axis->setTruncateLabels(false);
        }
        view->setBackgroundBrush(window);
    }
    // Series colours follow the timeline's meaning: blue = got the lock, amber = waiting.
    QColor fill = tp.holding;
    fill.setAlpha(90);
    m_throughputArea->setBrush(fill);
    m_throughputArea->setPen(QPen(tp.holding, 2));
    QColor waitFill = tp.waiting;
    waitFill.setAlpha(110);
    m_waitingArea->setBrush(waitFill);
    m_waitingArea->setPen(QPen(tp.waitingEdge, 2));
    m_latency->setColor(tp.holding);
    m_latency->setBorderColor(tp.holdingEdge);
    m_perWorker->setColor(tp.holding);
    m_perWorker->setBorderColor(tp.holdingEdge);
}

void ChartsPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        applyTheme();
    QWidget::changeEvent(event);
}

void ChartsPanel::clear()
{
    m_throughput->clear();
    m_waiting->clear();
    m_latency->remove(0, m_latency->count());
    m_perWorker->remove(0, m_perWorker->count());
    m_barLabels[2].clear();
    m_barLabels[3].clear();
    labelBars(2);
    labelBars(3);
    m_throughputX->setRange(0, 1);
    m_waitingX->setRange(0, 1);
    // Whole-number ticks even when empty: 0..1 in five ticks printed as "%.0f" read "0, 0, 1, 1, 1".
    for (QValueAxis *axis : {m_throughputY, m_waitingY, m_latencyY, m_perWorkerY})
        setCountRange(axis, 1);
    setTitles(3, {tr("Acquisitions per worker"), tr("Per worker")});
    m_workerNames.clear();
}

void ChartsPanel::setStats(const LiveStats &stats, const QStringList &workerNames, qint64 axisUs)
{
    const RunMetrics &m = stats.metrics;
    const double axisS = std::max(0.1, double(axisUs) / 1e6);
    const double bucketS = std::max(1e-3, double(m.bucketUs) / 1e6);
    // Time series: one point per bucket (steps drawn as flat tops for readability).
    QList<QPointF> throughput;
    QList<QPointF> waiting;
    double peakRate = 0;
    double peakWaiting = 0;
    const qint64 lastBucket = m.bucketUs > 0 ? (stats.atUs + m.bucketUs - 1) / m.bucketUs : 0;
    for (qsizetype i = 0; i < m.acquisitionsPerBucket.size() && i < lastBucket; ++i) {
        const double x0 = double(i) * bucketS;
        const double rate = m.acquisitionsPerBucket.at(i) / bucketS;
        throughput << QPointF(x0, rate) << QPointF(std::min(axisS, x0 + bucketS), rate);
        peakRate = std::max(peakRate, rate);
    }
    for (qsizetype i = 0; i < m.waitingPerBucket.size() && i < lastBucket; ++i) {
        const double x0 = double(i) * bucketS;
        const double count = m.waitingPerBucket.at(i);
        waiting << QPointF(x0, count) << QPointF(std::min(axisS, x0 + bucketS), count);
        peakWaiting = std::max(peakWaiting, count);
    }
    m_throughput->replace(throughput);
    m_waiting->replace(waiting);
    m_throughputX->setRange(0, axisS);
    m_waitingX->setRange(0, axisS);
    fitTimeTicks(0); // "60.0 s" takes more room than "6.5 s"
    fitTimeTicks(1);
    setCountRange(m_throughputY, peakRate);
    setCountRange(m_waitingY, peakWaiting);

    // Latency: the bins from the first to the last non-empty one.
    const QStringList labels = LiveStats::latencyBinLabels();
    qsizetype first = -1, last = -1;
    for (qsizetype i = 0; i < stats.latencyCounts.size(); ++i) {
        if (stats.latencyCounts.at(i) > 0) {
            if (first < 0)
                first = i;
            last = i;
        }
    }
    QStringList categories;
    QList<qreal> values;
    double peak = 0;
    if (first >= 0) {
        first = std::max<qsizetype>(0, first - 1);
        last = std::min<qsizetype>(stats.latencyCounts.size() - 1, last + 1);
        for (qsizetype i = first; i <= last; ++i) {
            categories << labels.value(i);
            values << qreal(stats.latencyCounts.at(i));
            peak = std::max(peak, double(stats.latencyCounts.at(i)));
        }
    }
    if (m_barLabels[2] != categories) {
        m_latency->remove(0, m_latency->count());
        m_barLabels[2] = categories;
        labelBars(2);
        m_latency->append(values);
    } else {
        for (qsizetype i = 0; i < values.size(); ++i)
            m_latency->replace(int(i), values.at(i));
    }
    setCountRange(m_latencyY, peak);

    // Per worker.
    QList<qreal> perWorker;
    double peakWorker = 0;
    for (qint64 v : m.acquisitionsPerWorker) {
        perWorker << qreal(v);
        peakWorker = std::max(peakWorker, double(v));
    }
    if (m_workerNames != workerNames || m_perWorker->count() != perWorker.size()) {
        m_workerNames = workerNames;
        m_perWorker->remove(0, m_perWorker->count());
        QStringList names = workerNames.mid(0, perWorker.size());
        while (names.size() < perWorker.size())
            names << QString::number(names.size() + 1);
        m_barLabels[3] = names;
        labelBars(3);
        m_perWorker->append(perWorker);
    } else {
        for (qsizetype i = 0; i < perWorker.size(); ++i)
            m_perWorker->replace(int(i), perWorker.at(i));
    }
    setCountRange(m_perWorkerY, peakWorker);
    const QString fairness = QString::number(m.fairnessJain, 'f', 2);
    const QStringList titles = m.acquisitions > 0
        ? QStringList {tr("Acquisitions per worker — fairness %1").arg(fairness),
                       tr("Per worker — fairness %1").arg(fairness), tr("Fairness %1").arg(fairness)}
        : QStringList {tr("Acquisitions per worker"), tr("Per worker")};
    if (titles != m_titles[3])
        setTitles(3, titles);
}

void ChartsPanel::paintExport(QPainter &painter, const QSize &size)
{
    painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Window));
    const int w = size.width() / 2;
    const int h = size.height() / 2;
    for (int i = 0; i < 4; ++i) {
        const QRect target((i % 2) * w + 4, (i / 2) * h + 4, w - 8, h - 8);
        m_views[i]->render(&painter, target, QRect(), Qt::IgnoreAspectRatio);
    }
}

QList<QPointF> ChartsPanel::throughputPoints() const
{
    return m_throughput->points();
}

QList<qreal> ChartsPanel::perWorkerValues() const
{
    QList<qreal> values;
    for (int i = 0; i < m_perWorker->count(); ++i)
        values << m_perWorker->at(i);
    return values;
}
