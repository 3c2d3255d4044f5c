// Expectation: parsing and evaluation of "metric op value".
#include "expectation.h"

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
            QStringLiteral("expiries"),
            QStringLiteral("fairness_jain"),
            QStringLiteral("counter_lost"),
            QStringLiteral("acquire_p50_us"),
            QStringLiteral("acquire_p99_us"),
            QStringLiteral("handoff_p50_us"),
            QStringLiteral("longest_wait_us"),
            QStringLiteral("max_holders")};
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

bool Expectation::parse(const QString &text, Expectation *out, QString *error)
{
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*([a-z_0-9]+)\\s*(>=|<=|==|!=|>|<)\\s*(-?[0-9]+(?:\\.[0-9]+)?)\\s*$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral("'%1' is not an expectation; write '<metric> <op> <number>' with op one of "
                                "> >= < <= == !=, e.g. 'overlaps > 0'")
                     .arg(text);
        return false;
    }
    const QString metric = m.captured(1);
    if (!knownMetrics().contains(metric)) {
        *error = QStringLiteral("'%1' is not a known metric; use one of: %2")
                     .arg(metric, knownMetrics().join(QStringLiteral(", ")));
        return false;
    }
    static const QHash<QString, Op> ops {
        {QStringLiteral(">"), Op::Greater}, {QStringLiteral(">="), Op::GreaterOrEqual},
        {QStringLiteral("<"), Op::Less},    {QStringLiteral("<="), Op::LessOrEqual},
        {QStringLiteral("=="), Op::Equal},  {QStringLiteral("!="), Op::NotEqual}};
    out->metric = metric;
    out->op = ops.value(m.captured(2));
    out->value = m.captured(3).toDouble();
    return true;
}

QString Expectation::toString() const
{
    return QStringLiteral("%1 %2 %3").arg(metric, opText(op), QString::number(value));
}

Expectation::Check Expectation::evaluate(const QHash<QString, double> &values) const
{
    Check c;
    c.expectation = toString();
    c.actual = values.value(metric);
    switch (op) {
    case Op::Greater:
        c.passed = c.actual > value;
        break;
    case Op::GreaterOrEqual:
        c.passed = c.actual >= value;
        break;
    case Op::Less:
        c.passed = c.actual < value;
        break;
    case Op::LessOrEqual:
        c.passed = c.actual <= value;
        break;
    case Op::Equal:
        c.passed = c.actual == value;
        break;
    case Op::NotEqual:
        c.passed = c.actual != value;
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
