// A safety violation the checker found: what, on which lock, between which workers, and when.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

struct Violation
{
    enum class Type { Overlap, StaleHolder, ForeignRelease, LostUpdate, FencingRejection };

    Type type = Type::Overlap;
    int lock = -1;
    QList<int> workers; // the workers involved; the first one is the one that acted last
    qint64 startUs = 0; // the window in which the violation held
    qint64 endUs = 0;
    bool openEnded = false; // still going on when the history ended
    QString text; // one sentence a person understands

    static QString typeName(Type type); // "overlap", "stale-holder", ... (as in the report JSON)
    QJsonObject toJson() const;
};
