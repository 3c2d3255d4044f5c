// SummaryCard: labels in a framed box; colours from the palette so it works in light and dark themes.
#include "summarycard.h"

#include "common/timelinepalette.h"

#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QVBoxLayout>

SummaryCard::SummaryCard(const QString &caption, const QString &toolTip, QWidget *parent)
    : QFrame(parent)
    , m_caption(new QLabel(caption, this))
    , m_value(new QLabel(QStringLiteral("—"), this))
    , m_detail(new QLabel(this))
{
    setObjectName(QStringLiteral("summaryCard"));
    m_toolTip = toolTip;
    setToolTip(toolTip);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->setSpacing(0);
    QFont captionFont = font();
    captionFont.setPointSizeF(font().pointSizeF() * 0.85);
    captionFont.setCapitalization(QFont::AllUppercase);
    m_caption->setFont(captionFont);
    QFont valueFont = font();
    valueFont.setPointSizeF(font().pointSizeF() * 1.45);
    valueFont.setBold(true);
    m_value->setFont(valueFont);
    QFont detailFont = font();
    detailFont.setPointSizeF(font().pointSizeF() * 0.85);
    m_detail->setFont(detailFont);
    m_value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Cards share the row: they never widen the window. The detail wraps onto another line rather than be
    // cut ("1 overlap · 1 stale holder · 1 lost upd"); caption and value are short.
    for (QLabel *l : {m_caption, m_value, m_detail})
        l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_detail->setWordWrap(true);
    setMinimumWidth(80);
    layout->addWidget(m_caption);
    layout->addWidget(m_value);
    layout->addWidget(m_detail);
    // Maximum, not Fixed: a fixed card's least height is its size hint, which Qt measures at a narrow width
    // where the detail wraps onto many lines (that took 300 px under the timeline at 1024×700). Its height
    // for its real width comes from the layout.
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    restyle();
}

void SummaryCard::setValue(const QString &value, const QString &detail, Tone tone)
{
    m_value->setText(value);
    m_detail->setText(detail);
    m_detail->setToolTip(detail);
    setToolTip(m_compact && !detail.isEmpty() ? QStringLiteral("%1\n%2").arg(detail, m_toolTip) : m_toolTip);
    // A wrapping label's own minimum is a word per line: one line is the least, and layouts give it the
    // lines its width needs (height for width).
    m_detail->setMinimumHeight(
        std::max(m_detail->heightForWidth(QWIDGETSIZE_MAX), m_detail->fontMetrics().height()));
    if (tone != m_tone) {
        m_tone = tone;
        restyle();
    }
}

void SummaryCard::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    m_detail->setVisible(!compact);
    layout()->setContentsMargins(compact ? QMargins(6, 2, 6, 2) : QMargins(10, 6, 10, 6));
    setValue(m_value->text(), m_detail->text(), m_tone);
}

void SummaryCard::setClickable(bool on)
{
    m_clickable = on;
    setCursor(on ? Qt::PointingHandCursor : Qt::ArrowCursor);
    setFocusPolicy(on ? Qt::TabFocus : Qt::NoFocus);
}

QString SummaryCard::value() const
{
    return m_value->text();
}

QString SummaryCard::detail() const
{
    return m_detail->text();
}

void SummaryCard::restyle()
{
    m_styling = true;
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    const QColor border = m_tone == Tone::Bad ? tp.stale : m_tone == Tone::Good ? tp.renewOk : tp.grid;
    const QColor value = m_tone == Tone::Bad ? tp.stale : m_tone == Tone::Good ? tp.renewOk : tp.text;
    setStyleSheet(QStringLiteral("QFrame#summaryCard { border: %1px solid %2; border-radius: 6px; "
                                 "background: %3; }")
                      .arg(m_tone == Tone::Bad ? 2 : 1)
                      .arg(border.name(), palette().color(QPalette::Base).name()));
    m_caption->setStyleSheet(QStringLiteral("color: %1").arg(tp.mutedText.name()));
    m_detail->setStyleSheet(QStringLiteral("color: %1").arg(tp.mutedText.name()));
    m_value->setStyleSheet(QStringLiteral("color: %1").arg(value.name()));
    m_styling = false;
}

void SummaryCard::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_clickable && event->button() == Qt::LeftButton && rect().contains(event->position().toPoint()))
        emit clicked();
    QFrame::mouseReleaseEvent(event);
}

void SummaryCard::keyPressEvent(QKeyEvent *event)
{
    if (m_clickable
        && (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter
            || event->key() == Qt::Key_Space)) {
        emit clicked();
        return;
    }
    QFrame::keyPressEvent(event);
}

void SummaryCard::changeEvent(QEvent *event)
{
    if (!m_styling
        && (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange))
        restyle();
    QFrame::changeEvent(event);
}
