// The Simulator place.
#pragma once

#include <QWidget>

class SimulatorPlace : public QWidget
{
    Q_OBJECT
public:
    explicit SimulatorPlace(QWidget *parent = nullptr);
};
