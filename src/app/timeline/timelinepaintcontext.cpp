// TimelinePaintContext: the visible time range stops at the replay cursor or the run's present, whichever
// comes first, so no painter shows what has not happened yet.
#include "timelinepaintcontext.h"

TimelinePaintContext::TimelinePaintContext(const TimelineData &data, const TimelineLayout &layout,
                                           const TimelinePalette &palette, const TimelineFonts &fonts,
                                           const TimelineLayout::View &view)
    : data(data)
    , layout(layout)
    , palette(palette)
    , fonts(fonts)
    , view(view)
    , lanes(TimelineLayout::lanesRect(view))
{
    pxPerUs = lanes.width() / double(std::max<qint64>(1, view.endUs - view.startUs));
    limitUs = std::min(data.nowUs(), view.cursorUs);
    visibleStart = view.startUs;
    visibleEnd = std::min(view.endUs, limitUs);
    runWidth = std::clamp(x(visibleEnd) - lanes.left(), 1.0, lanes.width());
}
