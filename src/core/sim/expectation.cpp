// Expectation: parsing and evaluation of "metric op value".
#include "expectation.h"

#include <QLocale>
#include <QRegularExpression>

QStringList Expectation::knownMetrics()
{
    return {QStringLiteral("overlaps"),
            QStringLiteral("stale_holders"),
            QStringLiteral("foreign_releases"),
            QStringLiteral("lost_updates"),
            QStringLiteral("fencing_rejections"),
            QStringLiteral("violations"),
            QStringLiteral("acquisitions"),
            QStringLiteral("cycles"),
            QStringLiteral("cycles_per_s"),
            QStringLiteral("failed_acquires"),
            QStringLiteral("errors"),
            QStringLiteral("renewals"),
            QStringLiteral("renewal_period_ms"),
            QStringLiteral("expiries"),
            QStringLiteral("fairness_jain"),
            QStringLiteral("counter_lost"),
            QStringLiteral("acquire_p50_us"),
            QStringLiteral("acquire_p99_us"),
            QStringLiteral("handoff_p50_us"),
            QStringLiteral("longest_wait_us"),
            QStringLiteral("max_holders"),
            QStringLiteral("locks_without_ttl"),
            QStringLiteral("failed_rounds"),
            QStringLiteral("rounds"),
            QStringLiteral("rounds_won"),
            QStringLiteral("rounds_no_quorum"),
            QStringLiteral("rounds_validity_spent")};
}

static QString opText(Expectation::Op op)
{
    switch (op) {
    case Expectation::Op::Greater:
        return QStringLiteral(">");
    case Expectation::Op::GreaterOrEqual:
        return QStringLiteral(">=");
    case Expectation::Op::Less:
        return QStringLiteral("<");
    case Expectation::Op::LessOrEqual:
        return QStringLiteral("<=");
    case Expectation::Op::Equal:
        return QStringLiteral("==");
    case Expectation::Op::NotEqual:
        return QStringLiteral("!=");
    }
    return {};
}

// Checks one metric name, "overlaps" or "<variant>.overlaps".
static bool checkMetric(const QString &name, const QStringList &variants, QString *error)
{
    QString metric = name;
    if (!variants.isEmpty()) {
        const qsizetype dot = name.indexOf(u'.');
        const QString variant = dot > 0 ? name.left(dot) : QString();
        if (!variants.contains(variant)) {
            *error = QStringLiteral("'%1' must name a variant first (%2), e.g. '%3.overlaps'")
                         .arg(name, variants.join(QStringLiteral(", ")), variants.first());
            return false;
        }
        metric = name.mid(dot + 1);
    }
    if (!Expectation::knownMetrics().contains(metric)) {
        *error = QStringLiteral("'%1' is not a known metric; use one of: %2")
                     .arg(metric, Expectation::knownMetrics().join(QStringLiteral(", ")));
        return false;
    }
    return true;
}

bool Expectation::parse(const QString &text, Expectation *out, QString *error, const QStringList &variants)
{
    static const QRegularExpression pattern(QStringLiteral(
        "^\\s*([a-z_0-9.-]+)\\s*(>=|<=|==|!=|>|<)\\s*(-?[0-9]+(?:\\.[0-9]+)?|[a-z_0-9.-]+)\\s*$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral(
                     "'%1' is not an expectation; write '<metric> <op> <number or metric>' with op one of "
                     "> >= < <= == !=, e.g. 'overlaps > 0'")
                     .arg(text);
        return false;
    }
    if (!checkMetric(m.captured(1), variants, error))
        return false;
    const QString right = m.captured(3);
    bool isNumber = false;
    const double number = right.toDouble(&isNumber);
    if (!isNumber && !checkMetric(right, variants, error))
        return false;
    static const QHash<QString, Op> ops {
        {QStringLiteral(">"), Op::Greater}, {QStringLiteral(">="), Op::GreaterOrEqual},
        {QStringLiteral("<"), Op::Less},    {QStringLiteral("<="), Op::LessOrEqual},
        {QStringLiteral("=="), Op::Equal},  {QStringLiteral("!="), Op::NotEqual}};
    out->metric = m.captured(1);
    out->op = ops.value(m.captured(2));
    out->value = isNumber ? number : 0;
    out->otherMetric = isNumber ? QString() : right;
    return true;
}

QString Expectation::toString() const
{
    return QStringLiteral("%1 %2 %3")
        .arg(metric, opText(op),
             otherMetric.isEmpty()
                 // Plain digits, exact (parse() takes no exponent): QString::number would write 1e+06.
                 ? QString::number(value, 'f', QLocale::FloatingPointShortest)
                 : otherMetric);
}

Expectation::Check Expectation::evaluate(const QHash<QString, double> &values) const
{
    Check c;
    c.expectation = toString();
    c.actual = values.value(metric);
    const double expected = otherMetric.isEmpty() ? value : values.value(otherMetric);
    c.compared = expected;
    switch (op) {
    case Op::Greater:
        c.passed = c.actual > expected;
        break;
    case Op::GreaterOrEqual:
        c.passed = c.actual >= expected;
        break;
    case Op::Less:
        c.passed = c.actual < expected;
        break;
    case Op::LessOrEqual:
        c.passed = c.actual <= expected;
        break;
    case Op::Equal:
        c.passed = c.actual == expected;
        break;
    case Op::NotEqual:
        c.passed = c.actual != expected;
        break;
    }
    return c;
}

QJsonObject Expectation::Check::toJson() const
{
    return QJsonObject {{QStringLiteral("expectation"), expectation},
                        {QStringLiteral("actual"), actual},
                        {QStringLiteral("passed"), passed}};
}
