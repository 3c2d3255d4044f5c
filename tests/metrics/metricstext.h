// Reads metrics text (OpenMetrics or Prometheus text) back into samples, for the tests to ask what was
// exported and what was not.
#pragma once

#include <QHash>
#include <QList>
#include <QString>

struct MetricSample
{
    QString name;
    QHash<QString, QString> labels;
    double value = 0;
};

namespace MetricsText {

QList<MetricSample> parse(const QByteArray &text);
// The samples named `name` whose labels include every one of `labels`.
QList<MetricSample> find(const QList<MetricSample> &samples, const QString &name,
                         const QHash<QString, QString> &labels = {});
// The one sample's value; NaN when there is none or several.
double value(const QList<MetricSample> &samples, const QString &name,
             const QHash<QString, QString> &labels = {});

} // namespace MetricsText
