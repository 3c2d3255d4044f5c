// TimelineFonts: the small print never goes below 6.5 pt, where the lane labels stop being readable.
#include "timelinefonts.h"

#include <algorithm>

TimelineFonts::TimelineFonts(const QFont &base)
    : normal(base)
    , small(base)
    , bold(base)
{
    small.setPointSizeF(std::max(6.5, base.pointSizeF() * 0.82));
    bold.setBold(true);
}
