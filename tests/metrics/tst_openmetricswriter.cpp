// OpenMetricsWriter: both formats Prometheus reads, with the differences each requires, and label values
// escaped (a key may hold quotes, backslashes and newlines).
#include "metrics/openmetricswriter.h"

#include <QTest>

#include <limits>

class TestOpenMetricsWriter : public QObject
{
    Q_OBJECT
private slots:
    void openMetrics();
    void prometheusText();
    void negotiates();
    void escapesLabels();
};

void TestOpenMetricsWriter::openMetrics()
{
    OpenMetricsWriter w(OpenMetricsWriter::Format::OpenMetrics);
    w.family("x_seconds", OpenMetricsWriter::Type::Gauge, QStringLiteral("Time\nleft"), "seconds");
    w.sample({{"key", QStringLiteral("a")}}, 1.5);
    w.sample({{"key", QStringLiteral("b")}}, std::numeric_limits<double>::infinity());
    w.family("y", OpenMetricsWriter::Type::Counter, QStringLiteral("Things"));
    w.sample({}, 3, "_total");
    w.family("z_seconds", OpenMetricsWriter::Type::Histogram, QStringLiteral("Holds"), "seconds");
    w.histogram({{"p", QStringLiteral("q")}}, {0.5, 1}, {2, 1, 4}, 9.25, 7);
    const QByteArray text = w.finish();
    QCOMPARE(text,
             QByteArray("# HELP x_seconds Time\\nleft\n"
                        "# TYPE x_seconds gauge\n"
                        "# UNIT x_seconds seconds\n"
                        "x_seconds{key=\"a\"} 1.5\n"
                        "x_seconds{key=\"b\"} +Inf\n"
                        "# HELP y Things\n"
                        "# TYPE y counter\n"
                        "y_total 3\n"
                        "# HELP z_seconds Holds\n"
                        "# TYPE z_seconds histogram\n"
                        "# UNIT z_seconds seconds\n"
                        "z_seconds_bucket{p=\"q\",le=\"0.5\"} 2\n"
                        "z_seconds_bucket{p=\"q\",le=\"1.0\"} 3\n"
                        "z_seconds_bucket{p=\"q\",le=\"+Inf\"} 7\n"
                        "z_seconds_sum{p=\"q\"} 9.25\n"
                        "z_seconds_count{p=\"q\"} 7\n"
                        "# EOF\n"));
}

void TestOpenMetricsWriter::prometheusText()
{
    OpenMetricsWriter w(OpenMetricsWriter::Format::PrometheusText);
    w.family("y", OpenMetricsWriter::Type::Counter, QStringLiteral("Things"));
    w.sample({}, 3, "_total");
    w.family("x_seconds", OpenMetricsWriter::Type::Gauge, QStringLiteral("Time"), "seconds");
    const QByteArray text = w.finish();
    // The counter's header names the sample; no UNIT lines and no # EOF in the older format.
    QCOMPARE(text,
             QByteArray("# HELP y_total Things\n# TYPE y_total counter\ny_total 3\n"
                        "# HELP x_seconds Time\n# TYPE x_seconds gauge\n"));
}

void TestOpenMetricsWriter::negotiates()
{
    // What Prometheus 2.42 sends.
    QCOMPARE(OpenMetricsWriter::negotiate("application/openmetrics-text;version=1.0.0,application/"
                                          "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                                          "q=0.5,*/*;q=0.1"),
             OpenMetricsWriter::Format::OpenMetrics);
    QCOMPARE(OpenMetricsWriter::negotiate("*/*"), OpenMetricsWriter::Format::PrometheusText);
    QCOMPARE(OpenMetricsWriter::negotiate(""), OpenMetricsWriter::Format::PrometheusText);
}

void TestOpenMetricsWriter::escapesLabels()
{
    QCOMPARE(OpenMetricsWriter::escapeLabel(QStringLiteral("a\"b\\c\nd")), QByteArray("a\\\"b\\\\c\\nd"));
}

QTEST_GUILESS_MAIN(TestOpenMetricsWriter)
#include "tst_openmetricswriter.moc"
