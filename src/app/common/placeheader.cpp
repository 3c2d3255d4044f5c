// PlaceHeader: layout only.
#include "placeheader.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QVBoxLayout>

PlaceHeader::PlaceHeader(const QString &iconPath, const QString &title, const QString &subtitle,
                         QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 6);
    auto *icon = new QLabel(this);
    icon->setPixmap(QIcon(iconPath).pixmap(36, 36));
    layout->addWidget(icon);
    auto *texts = new QVBoxLayout;
    auto *titleLabel = new QLabel(title, this);
    QFont f = titleLabel->font();
    f.setPointSizeF(f.pointSizeF() * 1.5);
    f.setBold(true);
    titleLabel->setFont(f);
    auto *subtitleLabel = new QLabel(subtitle, this);
    subtitleLabel->setWordWrap(true);
    subtitleLabel->setForegroundRole(QPalette::PlaceholderText);
    texts->addWidget(titleLabel);
    texts->addWidget(subtitleLabel);
    layout->addLayout(texts, 1);
}
