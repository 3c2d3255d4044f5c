// libFuzzer target: scenario files as a user (or a download) might hand them over → ScenarioParser, then
// whatever it accepts goes through toJson() and back, and through every variant merge.
#include "sim/scenarioparser.h"

#include <QJsonDocument>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const ScenarioParser parser;
    Scenario scenario;
    QStringList errors;
    if (!parser.parse(json, &scenario, &errors)) {
        if (errors.isEmpty())
            __builtin_trap(); // a refusal must say why
        return 0;
    }
    // What the parser accepted, it can write and read again.
    Scenario again;
    if (!parser.parse(QJsonDocument(ScenarioParser::toJson(scenario)).toJson(), &again, &errors))
        __builtin_trap();
    for (int i = 0; i < scenario.variants.size(); ++i) {
        Scenario variant;
        parser.variant(scenario, i, &variant, &errors);
    }
    (void)scenario.workerCount();
    return 0;
}
