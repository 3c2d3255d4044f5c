// OpenMetricsWriter: the two formats differ in four places only: a counter's TYPE line names it without
// "_total" in OpenMetrics and with it in 0.0.4, OpenMetrics has UNIT lines, ends with "# EOF", and has its
// own Content-Type.
#include "openmetricswriter.h"

#include <cmath>
#include <utility>

OpenMetricsWriter::OpenMetricsWriter(Format format)
    : m_format(format)
{
    m_out.reserve(64 * 1024);
}

OpenMetricsWriter::Format OpenMetricsWriter::negotiate(const QByteArray &accept)
{
    return accept.contains("application/openmetrics-text") ? Format::OpenMetrics : Format::PrometheusText;
}

QByteArray OpenMetricsWriter::contentType(Format format)
{
    return format == Format::OpenMetrics ? QByteArrayLiteral("application/openmetrics-text; version=1.0.0; "
                                                             "charset=utf-8")
                                         : QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
}

QByteArray OpenMetricsWriter::escapeLabel(const QString &value)
{
    QByteArray out;
    const QByteArray utf8 = value.toUtf8();
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

void OpenMetricsWriter::family(const QByteArray &name, Type type, const QString &help, const QByteArray &unit)
{
    m_name = name;
    m_type = type;
    const QByteArray typeName = type == Type::Gauge ? "gauge"
        : type == Type::Counter                     ? "counter"
                                                    : "histogram";
    const QByteArray headerName
        = type == Type::Counter && m_format == Format::PrometheusText ? name + "_total" : name;
    QByteArray escapedHelp = help.toUtf8();
    escapedHelp.replace("\\", "\\\\").replace("\n", "\\n");
    m_out += "# HELP " + headerName + ' ' + escapedHelp + '\n';
    m_out += "# TYPE " + headerName + ' ' + typeName + '\n';
    if (!unit.isEmpty() && m_format == Format::OpenMetrics)
        m_out += "# UNIT " + headerName + ' ' + unit + '\n';
}

void OpenMetricsWriter::sample(const Labels &labels, double value, const QByteArray &suffix)
{
    m_out += m_name;
    m_out += suffix;
    if (!labels.isEmpty()) {
        m_out += '{';
        for (qsizetype i = 0; i < labels.size(); ++i) {
            if (i > 0)
                m_out += ',';
            m_out += labels.at(i).first + "=\"" + escapeLabel(labels.at(i).second) + '"';
        }
        m_out += '}';
    }
    m_out += ' ';
    if (std::isinf(value))
        m_out += value > 0 ? "+Inf" : "-Inf";
    else if (std::isnan(value))
        m_out += "NaN";
    else if (value == std::floor(value) && std::fabs(value) < 1e15)
        m_out += QByteArray::number(qint64(value));
    else
        m_out += QByteArray::number(value, 'g', 15);
    m_out += '\n';
}

void OpenMetricsWriter::histogram(const Labels &labels, const QList<double> &bounds,
                                  const QList<quint64> &buckets, double sum, quint64 count)
{
    quint64 cumulative = 0;
    for (qsizetype i = 0; i <= bounds.size(); ++i) {
        cumulative += buckets.value(i);
        Labels withLe = labels;
        // OpenMetrics wants bounds as floats ("1.0", not "1"); Prometheus reads either.
        QString le = QStringLiteral("+Inf");
        if (i < bounds.size()) {
            le = QString::number(bounds.at(i), 'g', 15);
            if (!le.contains(u'.') && !le.contains(u'e'))
                le += QLatin1String(".0");
        }
        withLe.append({"le", le});
        sample(withLe, double(cumulative), "_bucket");
    }
    sample(labels, sum, "_sum");
    sample(labels, double(count), "_count");
}

QByteArray OpenMetricsWriter::finish()
{
    if (m_format == Format::OpenMetrics)
        m_out += "# EOF\n";
    return std::exchange(m_out, {});
}
