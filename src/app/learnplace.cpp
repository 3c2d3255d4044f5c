// LearnPlace: the frame the guided stories will fill.
#include "learnplace.h"

#include "placeheader.h"

#include <QLabel>
#include <QVBoxLayout>

LearnPlace::LearnPlace(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/learn.svg"), tr("Learn"),
                        tr("Watch each lock algorithm from the articles run for real, and see its "
                           "flaw happen on a timeline, step by step."),
                        this));
    auto *body = new QLabel(tr("The guided stories are not built yet."), this);
    body->setAlignment(Qt::AlignCenter);
    layout->addWidget(body, 1);
}
