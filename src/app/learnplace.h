// The Learn place.
#pragma once

#include <QWidget>

class LearnPlace : public QWidget
{
    Q_OBJECT
public:
    explicit LearnPlace(QWidget *parent = nullptr);
};
