// Writes a scenario back as the JSON ScenarioParser reads (every field, defaults included), so that a
// scenario edited in the GUI, a variant or a fork can be saved, merged and parsed again.
#pragma once

#include "scenario.h"

#include <QJsonObject>

class ScenarioWriter
{
public:
    static QJsonObject toJson(const Scenario &scenario);
};
