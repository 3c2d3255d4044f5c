// Writes metrics as text Prometheus reads: OpenMetrics 1.0 (what Prometheus asks for first) or the older
// Prometheus text format 0.0.4 (what curl and older scrapers get). One family at a time, each sample of a
// family right after its header, as both formats require; label values and help texts escaped.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

class OpenMetricsWriter
{
public:
    enum class Format { OpenMetrics, PrometheusText };
    enum class Type { Gauge, Counter, Histogram };
    using Labels = QList<QPair<QByteArray, QString>>;

    explicit OpenMetricsWriter(Format format);

    // The format to answer a scraper with, from its Accept header: OpenMetrics when it asks for it.
    static Format negotiate(const QByteArray &accept);
    // The Content-Type of a body in `format`.
    static QByteArray contentType(Format format);

    // Starts the family `name` (for a counter: without "_total").
    void family(const QByteArray &name, Type type, const QString &help, const QByteArray &unit = {});
    // A sample of the current family: its name plus `suffix` ("_total", "_bucket", "_sum", "_count" or
    // empty). Values print as Prometheus reads them (+Inf, whole numbers without a fraction).
    void sample(const Labels &labels, double value, const QByteArray &suffix = {});
    // One histogram's samples from non-cumulative `buckets` (one per bound, then +Inf).
    void histogram(const Labels &labels, const QList<double> &bounds, const QList<quint64> &buckets,
                   double sum, quint64 count);
    // The whole text, ended as the format requires.
    QByteArray finish();

    static QByteArray escapeLabel(const QString &value);

private:
    Format m_format;
    QByteArray m_name;
    Type m_type = Type::Gauge;
    QByteArray m_out;
};
