// ComparisonTable: the rows of RunComparison in HTML, with the verdict cell in the colour of what happened.
#include "comparisontable.h"

#include <QObject>
#include <QTabBar>

namespace ComparisonTable {

QString shortVerdict(const RunComparison::Row &row)
{
    using V = RunComparison::Verdict;
    switch (row.verdict) {
    case V::NoVerdict:
        return QObject::tr("no verdict");
    case V::DataLost:
        return QObject::tr("data lost");
    case V::LockStuck:
        return QObject::tr("lock stuck");
    case V::TwoHolders:
        return QObject::tr("two holders");
    case V::SafeByFencing:
        return QObject::tr("data safe (fenced)");
    case V::SafeUnknown:
        return QObject::tr("safe as far as seen");
    case V::Safe:
        return QObject::tr("safe");
    }
    return QString();
}

QColor verdictColor(RunComparison::Verdict verdict, const TimelinePalette &palette)
{
    if (RunComparison::isBad(verdict))
        return palette.stale;
    if (verdict == RunComparison::Verdict::NoVerdict || verdict == RunComparison::Verdict::SafeUnknown)
        return palette.mutedText;
    return palette.renewOk;
}

void labelTab(QTabBar *tabs, int index, const QString &variant, const RunReport *report)
{
    if (!report) {
        tabs->setTabText(index, variant);
        tabs->setTabTextColor(index, tabs->palette().color(QPalette::WindowText));
        tabs->setTabToolTip(index, QString());
        return;
    }
    const RunComparison::Row row = RunComparison::row(variant, *report);
    tabs->setTabText(index, QObject::tr("%1 — %2").arg(variant, shortVerdict(row)));
    tabs->setTabTextColor(index, verdictColor(row.verdict, TimelinePalette::forPalette(tabs->palette())));
    tabs->setTabToolTip(index, row.verdictText);
}

QString html(const QList<RunComparison::Row> &rows, const TimelinePalette &palette)
{
    if (rows.isEmpty())
        return QString();
    const bool variants = rows.size() > 1 || !rows.first().variant.isEmpty();
    QString out = variants ? QObject::tr("<h4>Side by side: what each run did to the lock and the data</h4>")
                           : QObject::tr("<h4>What the run did to the lock and the data</h4>");
    out += QStringLiteral("<table width='100%' border='1' cellspacing='0' cellpadding='3' "
                          "style='border-color:%1'><tr>")
               .arg(palette.grid.name());
    // What happened comes right after the name, so that it is read first and is never the column cut off;
    // the library goes under the name (a column of its own squeezed the table in a 1024 px window).
    QStringList header {variants ? QObject::tr("Variant") : QObject::tr("Library"),
                        QObject::tr("What happened")};
    header << QObject::tr("Acquired") << QObject::tr("Overlaps") << QObject::tr("Stale holders")
           << QObject::tr("Lost updates") << QObject::tr("Writes refused") << QObject::tr("Unknown");
    // The names and the verdicts take what the numbers leave; a number's column is as wide as its header.
    for (qsizetype i = 0; i < header.size(); ++i)
        out += QStringLiteral("<th width='%1%'>%2</th>").arg(i < 2 ? 22 : 9).arg(header.at(i));
    out += QStringLiteral("</tr>");
    const auto number = [&](qint64 n, bool bad) {
        return bad && n > 0 ? QStringLiteral("<td align='right' style='color:%1'><b>%2</b></td>")
                                  .arg(palette.stale.name())
                                  .arg(n)
                            : QStringLiteral("<td align='right'>%1</td>").arg(n);
    };
    for (const RunComparison::Row &r : rows) {
        out += QStringLiteral("<tr>");
        if (variants)
            out += QStringLiteral("<td><b>%1</b><br><small>%2</small></td>")
                       .arg(r.variant.toHtmlEscaped(), r.library.toHtmlEscaped());
        else
            out += QStringLiteral("<td>%1</td>").arg(r.library.toHtmlEscaped());
        out += QStringLiteral("<td style='color:%1'><b>%2</b></td>")
                   .arg(verdictColor(r.verdict, palette).name(), r.verdictText.toHtmlEscaped());
        out += number(r.acquisitions, false) + number(r.overlaps, true) + number(r.staleHolders, true);
        // Without a counter there was no data to lose: a dash, not a 0.
        out += r.counter ? number(r.lostUpdates, true) : QStringLiteral("<td align='right'>—</td>");
        out += number(r.fencingRejections, false) + number(r.unknownOutcomes, false);
        out += QStringLiteral("</tr>");
    }
    out += QStringLiteral("</table>");
    return out;
}

} // namespace ComparisonTable
