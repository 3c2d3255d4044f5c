// SimulatorPlace: the frame the scenario editor, timeline and charts will fill.
#include "simulatorplace.h"

#include "placeheader.h"

#include <QLabel>
#include <QVBoxLayout>

SimulatorPlace::SimulatorPlace(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/simulator.svg"), tr("Simulator"),
                        tr("Run worker threads that fight for locks on a real Redis, inject pauses, "
                           "crashes and failovers, and measure throughput, fairness and safety."),
                        this));
    auto *body = new QLabel(tr("The contention simulator is not built yet."), this);
    body->setAlignment(Qt::AlignCenter);
    layout->addWidget(body, 1);
}
