// The title strip at the top of each place: an icon, a name and one sentence on what the place is for.
#pragma once

#include <QWidget>

class PlaceHeader : public QWidget
{
    Q_OBJECT
public:
    PlaceHeader(const QString &iconPath, const QString &title, const QString &subtitle,
                QWidget *parent = nullptr);
};
