// SummaryCards: formats the run's numbers.
#include "summarycards.h"

#include "common/textformat.h"

#include "summarycard.h"
#include "timeline/timelinerenderer.h"

#include <QGridLayout>
#include <QResizeEvent>

namespace {
QString latency(qint64 us)
{
    return TextFormat::duration(us);
}
} // namespace

SummaryCards::SummaryCards(QWidget *parent)
    : QWidget(parent)
{
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(6);
    m_throughput = new SummaryCard(tr("Throughput"), tr("Acquisitions per second, as the chart counts them; below, how many, and the whole lock/unlock cycles (releases that released)"), this);
    m_latency
        = new SummaryCard(tr("Acquire latency"),
                          tr("From asking for the lock to getting it (waiting included): median and 99th "
                             "percentile"),
                          this);
    m_handoff = new SummaryCard(
        tr("Hand-off"), tr("From one worker's release to the next waiting worker getting the lock (median)"),
        this);
    m_fairness
        = new SummaryCard(tr("Fairness"),
                          tr("Jain's index over acquisitions per worker: 1 = every worker got the same "
                             "share"),
                          this);
    m_renewals = new SummaryCard(tr("Renewals"), tr("Lease extensions sent by watchdogs"), this);
    m_expiries = new SummaryCard(
        tr("Lease expiries"), tr("Leases that ran out while their holder still counted on the lock"), this);
    m_violations
        = new SummaryCard(tr("Violations"),
                          tr("Safety violations the checker proved from the history. Click to see the "
                             "first one on the timeline."),
                          this);
    m_violations->setClickable(true);
    m_expect = new SummaryCard(tr("Expectations"), tr("What the scenario says the run must show"), this);
    m_expect->setClickable(true);
    reflow(8);
    m_throughput->setObjectName(QStringLiteral("throughputCard"));
    m_violations->setObjectName(QStringLiteral("violationsCard"));
    connect(m_violations, &SummaryCard::clicked, this, &SummaryCards::violationsClicked);
    connect(m_expect, &SummaryCard::clicked, this, &SummaryCards::expectationsClicked);
    clear();
}

void SummaryCards::reflow(int columns)
{
    if (columns == m_columns)
        return;
    m_columns = columns;
    const QList<SummaryCard *> cards {m_throughput, m_latency,  m_handoff,    m_fairness,
                                      m_renewals,   m_expiries, m_violations, m_expect};
    for (SummaryCard *c : cards)
        m_grid->removeWidget(c);
    for (int i = 0; i < cards.size(); ++i)
        m_grid->addWidget(cards.at(i), i / columns, i % columns);
}

void SummaryCards::resizeEvent(QResizeEvent *event)
{
    reflow(columnsFor(event->size().width()));
    QWidget::resizeEvent(event);
}

int SummaryCards::columnsFor(int width) const
{
    // Eight cards in one row when they fit at a readable width, else two rows of four, else four of two.
    // Compact cards (caption and value) are narrower.
    return width >= (m_compact ? 8 * 92 : 8 * 118) ? 8 : width >= 4 * 100 ? 4 : 2;
}

void SummaryCards::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    for (SummaryCard *c :
         {m_throughput, m_latency, m_handoff, m_fairness, m_renewals, m_expiries, m_violations, m_expect})
        c->setCompact(compact);
    reflow(columnsFor(width()));
}

QSize SummaryCards::minimumSizeHint() const
{
    // What the narrowest arrangement needs (four rows of two), not what the current one has: the grid's own
    // hint follows the columns in use, and eight in a row made the whole window wider than 1024 px.
    const QSize card = m_throughput->minimumSizeHint();
    const int spacing = std::max(0, m_grid->horizontalSpacing());
    const QMargins m = m_grid->contentsMargins();
    return {2 * card.width() + spacing + m.left() + m.right(), QWidget::minimumSizeHint().height()};
}

SummaryCard *SummaryCards::card(const QString &name) const
{
    const QHash<QString, SummaryCard *> cards {
        {QStringLiteral("throughput"), m_throughput}, {QStringLiteral("latency"), m_latency},
        {QStringLiteral("handoff"), m_handoff},       {QStringLiteral("fairness"), m_fairness},
        {QStringLiteral("renewals"), m_renewals},     {QStringLiteral("expiries"), m_expiries},
        {QStringLiteral("violations"), m_violations}, {QStringLiteral("expect"), m_expect}};
    return cards.value(name);
}

void SummaryCards::clear()
{
    for (SummaryCard *c :
         {m_throughput, m_latency, m_handoff, m_fairness, m_renewals, m_expiries, m_violations, m_expect})
        c->setValue(QStringLiteral("—"));
}

void SummaryCards::setStats(const LiveStats &stats, int expiries)
{
    const RunMetrics &m = stats.metrics;
    // Acquisitions per second, as the chart beside it counts them: whole cycles (releases that released) read
    // 0.00/s on a story whose releases all failed while the chart showed the acquisitions.
    m_throughput->setValue(tr("%1/s").arg(m.acquisitionsPerS, 0, 'f', m.acquisitionsPerS < 10 ? 2 : 1),
                           tr("%1 · %2").arg(TextFormat::count(m.acquisitions, tr("acquisition"), tr("acquisitions")),
                                             TextFormat::count(m.cycles, tr("full cycle"), tr("full cycles"))));
    if (m.acquireLatency.count > 0)
        // The median alone as the value ("p50 2.3 ms" did not fit a card of a 1024 px window).
        m_latency->setValue(
            latency(m.acquireLatency.p50),
            tr("median · p99 %1 · max %2").arg(latency(m.acquireLatency.p99), latency(m.acquireLatency.max)));
    else
        m_latency->setValue(QStringLiteral("—"), stats.final ? tr("no acquisition in this run") : tr("no acquisition yet"));
    if (m.handoffLatency.count > 0)
        m_handoff->setValue(latency(m.handoffLatency.p50),
                            tr("median · p99 %1 · %2").arg(latency(m.handoffLatency.p99),
                                                    TextFormat::count(m.handoffLatency.count, tr("hand-off"), tr("hand-offs"))));
    else
        m_handoff->setValue(QStringLiteral("—"), stats.final ? tr("no hand-off in this run") : tr("no hand-off yet"));
    if (m.acquisitions > 0)
        m_fairness->setValue(QString::number(m.fairnessJain, 'f', 2),
                             m.fairnessJain >= 0.9 ? tr("even shares") : tr("uneven shares"));
    else
        m_fairness->setValue(QStringLiteral("—"));
    m_renewals->setValue(QString::number(m.renewals),
                         m.renewalFailures > 0 ? tr("%n failed: lock lost", nullptr, int(m.renewalFailures))
                                               : tr("none failed"),
                         m.renewalFailures > 0 ? SummaryCard::Tone::Bad : SummaryCard::Tone::Normal);
    m_expiries->setValue(QString::number(expiries), expiries > 0 ? tr("under a holder") : tr("none"),
                         expiries > 0 ? SummaryCard::Tone::Bad : SummaryCard::Tone::Normal);
    const SafetyChecker::Result &s = stats.safety;
    QStringList parts;
    if (s.overlaps)
        parts << TextFormat::count(s.overlaps, tr("overlap"), tr("overlaps"));
    if (s.staleHolders)
        parts << TextFormat::count(s.staleHolders, tr("stale holder"), tr("stale holders"));
    if (s.foreignReleases)
        parts << TextFormat::count(s.foreignReleases, tr("foreign release"), tr("foreign releases"));
    if (s.lostUpdates)
        parts << TextFormat::count(s.lostUpdates, tr("lost update"), tr("lost updates"));
    if (s.fencingRejections)
        parts << tr("%n fenced out", nullptr, s.fencingRejections);
    const int count = s.violations();
    m_violations->setValue(QString::number(count),
                           parts.isEmpty() ? tr("safe so far") : parts.join(QStringLiteral(" · ")),
                           count > 0 ? SummaryCard::Tone::Bad : SummaryCard::Tone::Good);
}

void SummaryCards::setChecksPending(const QString &why)
{
    m_expect->setValue(QStringLiteral("…"), why);
}

void SummaryCards::setChecks(const QList<Expectation::Check> &checks, bool complete)
{
    if (checks.isEmpty()) {
        m_expect->setValue(QStringLiteral("—"), tr("none in this scenario"));
        return;
    }
    int passed = 0;
    QStringList failed;
    for (const Expectation::Check &c : checks) {
        if (c.passed)
            ++passed;
        else
            failed << c.expectation;
    }
    if (!complete) {
        m_expect->setValue(tr("%1 / %2").arg(passed).arg(checks.size()), tr("judged when every run is in"));
        return;
    }
    // Met expectations are not a lock passing (a story may expect it to lose data): no green for them.
    const bool ok = failed.isEmpty();
    m_expect->setValue(ok ? tr("%1 / %2").arg(passed).arg(checks.size())
                          : tr("✘ %1 / %2").arg(passed).arg(checks.size()),
                       ok ? tr("the run showed what the scenario says")
                          : tr("not shown: %1").arg(failed.join(QStringLiteral(", "))),
                       ok ? SummaryCard::Tone::Normal : SummaryCard::Tone::Bad);
}
