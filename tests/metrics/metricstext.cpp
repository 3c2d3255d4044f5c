// MetricsText: one sample a line, `name{label="value",…} number`; comments skipped.
#include "metricstext.h"

#include <QRegularExpression>

#include <cmath>
#include <limits>

QList<MetricSample> MetricsText::parse(const QByteArray &text)
{
    static const QRegularExpression line(
        QStringLiteral("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)$"));
    static const QRegularExpression label(
        QStringLiteral("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\""));
    QList<MetricSample> out;
    for (const QByteArray &raw : text.split('\n')) {
        if (raw.isEmpty() || raw.startsWith('#'))
            continue;
        const QRegularExpressionMatch m = line.match(QString::fromUtf8(raw));
        if (!m.hasMatch())
            continue;
        MetricSample s;
        s.name = m.captured(1);
        auto it = label.globalMatch(m.captured(2));
        while (it.hasNext()) {
            const QRegularExpressionMatch l = it.next();
            const QString escaped = l.captured(2);
            QString v;
            for (qsizetype i = 0; i < escaped.size(); ++i) {
                if (escaped.at(i) == u'\\' && i + 1 < escaped.size()) {
                    const QChar next = escaped.at(++i);
                    v += next == u'n' ? QChar(u'\n') : next;
                } else {
                    v += escaped.at(i);
                }
            }
            s.labels.insert(l.captured(1), v);
        }
        const QString number = m.captured(3);
        s.value
            = number == QLatin1String("+Inf") ? std::numeric_limits<double>::infinity() : number.toDouble();
        out << s;
    }
    return out;
}

QList<MetricSample> MetricsText::find(const QList<MetricSample> &samples, const QString &name,
                                      const QHash<QString, QString> &labels)
{
    QList<MetricSample> out;
    for (const MetricSample &s : samples) {
        if (s.name != name)
            continue;
        bool all = true;
        for (auto it = labels.cbegin(); it != labels.cend() && all; ++it)
            all = s.labels.value(it.key()) == it.value();
        if (all)
            out << s;
    }
    return out;
}

double MetricsText::value(const QList<MetricSample> &samples, const QString &name,
                          const QHash<QString, QString> &labels)
{
    const QList<MetricSample> found = find(samples, name, labels);
    return found.size() == 1 ? found.first().value : std::nan("");
}
