// The three fonts the timeline writes with (lane names, the small print of states, tags and the ruler, bold
// names and step numbers), derived once from the widget's font instead of at every paint.
#pragma once

#include <QFont>

struct TimelineFonts
{
    explicit TimelineFonts(const QFont &base = QFont());

    QFont normal;
    QFont small;
    QFont bold;
};
