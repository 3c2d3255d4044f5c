// Many spans thinner than a pixel (a dense lane at a wide zoom) summed per pixel column and painted as one
// image band, instead of thousands of sub-pixel rectangles: what keeps a 200-lane, 400,000-event timeline
// within a frame's time. add() is inline: it runs once per span.
#pragma once

#include <QColor>
#include <QList>

#include <algorithm>
#include <cmath>

class QPainter;

class TimelineCoverage
{
public:
    TimelineCoverage(double left, double width)
        : m_left(left)
        , m_cover(std::max(1, int(std::ceil(width))), 0.0f)
    {
    }
    void add(double xa, double xb)
    {
        const double w = double(m_cover.size());
        double a = std::clamp(xa - m_left, 0.0, w);
        double b = std::clamp(xb - m_left, 0.0, w);
        if (b <= a) {
            if (a >= w)
                return;
            b = std::min(w, a + 0.25); // a zero-length span still shows
        }
        const int ia = std::min(int(a), int(m_cover.size()) - 1);
        const int ib = std::min(int(b), int(m_cover.size()) - 1);
        if (ia == ib) {
            m_cover[ia] += float(b - a);
        } else {
            m_cover[ia] += float(ia + 1 - a);
            for (int i = ia + 1; i < ib; ++i)
                m_cover[i] += 1.0f;
            m_cover[ib] += float(b - ib);
        }
        m_used = true;
    }
    bool isEmpty() const { return !m_used; }
    // The columns as one band of `h` pixels at `y`, each as opaque as it is covered.
    void paint(QPainter &p, double y, double h, const QColor &color) const;

private:
    double m_left;
    QList<float> m_cover;
    bool m_used = false;
};
