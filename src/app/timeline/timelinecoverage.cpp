// TimelineCoverage: the band is drawn unscaled, at whole pixels.
#include "timelinecoverage.h"

#include <QImage>
#include <QPainter>

#include <cstring>

void TimelineCoverage::paint(QPainter &p, double y, double h, const QColor &color) const
{
    if (!m_used)
        return;
    // The band is painted unscaled at whole pixels: the raster engine's fast path (a stretched one-row
    // image goes through the slow transformed one).
    const int height = std::max(1, int(std::lround(h)));
    QImage band(int(m_cover.size()), height, QImage::Format_ARGB32_Premultiplied);
    auto *pixels = reinterpret_cast<QRgb *>(band.scanLine(0));
    const double baseAlpha = color.alphaF() * 255.0;
    for (qsizetype i = 0; i < m_cover.size(); ++i) {
        const float c = m_cover.at(i);
        if (c <= 0) {
            pixels[i] = 0;
            continue;
        }
        // Anything present is clearly visible; full columns are solid.
        const int alpha = int(baseAlpha * std::min(1.0, 0.6 + 0.4 * std::min(1.0f, c)));
        pixels[i] = qPremultiply(qRgba(color.red(), color.green(), color.blue(), alpha));
    }
    const qsizetype rowBytes = band.bytesPerLine();
    for (int line = 1; line < height; ++line)
        std::memcpy(band.scanLine(line), pixels, size_t(rowBytes));
    p.drawImage(QPoint(int(std::lround(m_left)), int(std::lround(y))), band);
}
