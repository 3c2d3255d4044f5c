// One line of a scenario's `expect`: "<metric> <op> <number or metric>", e.g. "overlaps > 0",
// "violations == 0", or across the variants of a comparison "fair.fairness_jain > unfair.fairness_jain".
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

struct Expectation
{
    enum class Op { Greater, GreaterOrEqual, Less, LessOrEqual, Equal, NotEqual };

    QString metric; // "overlaps", or "<variant>.overlaps" in a scenario with variants
    Op op = Op::Equal;
    double value = 0;
    QString otherMetric; // when set, compare with this metric instead of `value`

    // The metrics an expectation may name (the keys RunReport::expectationValues() provides).
    static QStringList knownMetrics();
    // Parses "overlaps > 0". `variants`: the names a metric may be prefixed with (required when non-empty).
    // False with `error` saying what is wrong and what is allowed.
    static bool parse(const QString &text, Expectation *out, QString *error,
                      const QStringList &variants = {});
    QString toString() const;

    struct Check
    {
        QString expectation;
        double actual = 0;
        double compared = 0; // the number or the other metric's value it was compared with
        bool passed = false;
        QJsonObject toJson() const;
    };
    Check evaluate(const QHash<QString, double> &values) const;
};
