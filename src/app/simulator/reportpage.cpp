// ReportPage: one HTML page rebuilt whenever a run ends or the stepping moves past or back from the end.
#include "reportpage.h"

#include "common/timelinepalette.h"
#include "comparisontable.h"

ReportPage::ReportPage(QWidget *parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
}

void ReportPage::showOutcome(const SimulationRunner::Outcome &outcome, const Scenario &s, bool judged,
                             bool stepping)
{
    QString html = QStringLiteral("<h3>%1</h3>").arg(s.title.toHtmlEscaped());
    const QString teaching
        = s.teaching.isEmpty() ? QString() : QStringLiteral("<p>%1</p>").arg(s.teaching.toHtmlEscaped());
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    // Stepping before the end: the results would give the story away.
    if (stepping) {
        html += tr("<p style='color:%1'><i>Stepping: the results are shown at the last step (or when you "
                   "leave stepping, Ctrl+T).</i></p>")
                    .arg(tp.mutedText.name());
        setHtml(html + teaching);
        return;
    }
    // First, before any verdict: a run that failed (a server refusing it for good…) proves nothing.
    if (!outcome.error.isEmpty())
        html += tr("<p style='color:%1'><b>The run failed:</b> %2</p>")
                    .arg(tp.stale.name(), outcome.error.toHtmlEscaped());
    if (!outcome.runs.isEmpty())
        html += ComparisonTable::html(outcome.comparison(), tp);
    if (!outcome.checks.isEmpty()) {
        // What the scenario says the run must show: met or not, never a verdict on the lock (a story may
        // expect a library to lose an update). So no green here: a met one is plain, a missed one red.
        html += tr("<h4>What the scenario expects the run to show</h4><ul>");
        // While variants are still to run, an expectation over them is not judged yet: a red ✘ then would be
        // a verdict on runs that have not happened.
        for (const Expectation::Check &c : outcome.checks) {
            if (!judged)
                html
                    += tr("<li style='color:%1'>◌ %2 <small>(judged when every variant has run)</small></li>")
                           .arg(tp.mutedText.name(), c.expectation.toHtmlEscaped());
            else if (c.passed)
                html += tr("<li>shown as expected: <code>%1</code> <small>(actual %2)</small></li>")
                            .arg(c.expectation.toHtmlEscaped())
                            .arg(c.actual);
            else
                html += tr("<li style='color:%1'><b>not shown:</b> <code>%2</code> <small>(actual %3)</small>"
                           "</li>")
                            .arg(tp.stale.name(), c.expectation.toHtmlEscaped())
                            .arg(c.actual);
        }
        html += QStringLiteral("</ul>");
    }
    // The story's explanation after the results, which a small window shows first.
    html += teaching;
    html += QStringLiteral("<pre>%1</pre>").arg(outcome.summaryText().toHtmlEscaped());
    setHtml(html);
}
