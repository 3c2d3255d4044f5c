// One line of a scenario's `expect`: "<metric> <op> <number>", e.g. "overlaps > 0" or "violations == 0".
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

struct Expectation
{
    enum class Op { Greater, GreaterOrEqual, Less, LessOrEqual, Equal, NotEqual };

    QString metric;
    Op op = Op::Equal;
    double value = 0;

    // The metrics an expectation may name (the keys RunReport::expectationValues() provides).
    static QStringList knownMetrics();
    // Parses "overlaps > 0". False with `error` saying what is wrong and what is allowed.
    static bool parse(const QString &text, Expectation *out, QString *error);
    QString toString() const;

    struct Check
    {
        QString expectation;
        double actual = 0;
        bool passed = false;
        QJsonObject toJson() const;
    };
    Check evaluate(const QHash<QString, double> &values) const;
};
