// Reads and writes scenario JSON. Every error names the field (as a path) and says what is allowed;
// unknown fields are errors with a "did you mean" suggestion, so a typo never silently changes a run.
#pragma once

#include "scenario.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

class ScenarioParser
{
public:
    static constexpr int kFormatVersion = 1;
    // The presets are a few kB; anything near this is not a scenario (a log, a dump) and is not parsed.
    static constexpr qsizetype kMaxFileBytes = 1024 * 1024;

    // Algorithm ids the parser accepts; by default the ten of the lock catalog plus "none" (no lock at all,
    // the inventory demo's baseline).
    explicit ScenarioParser(QStringList algorithmIds = defaultAlgorithmIds());

    // False when there is any error; `errors` then lists every problem found, one sentence each.
    bool parse(const QByteArray &json, Scenario *out, QStringList *errors) const;
    bool parse(const QJsonObject &object, Scenario *out, QStringList *errors) const;
    static QJsonObject toJson(const Scenario &scenario);
    // The scenario of one variant: `base` with the variant's overrides merged in (objects merge field by
    // field, anything else replaces), without variants of its own.
    bool variant(const Scenario &base, int index, Scenario *out, QStringList *errors) const;
    // Deep merge used by variant(): `overrides` wins, objects merge recursively.
    static QJsonObject merged(const QJsonObject &base, const QJsonObject &overrides);

    static QStringList defaultAlgorithmIds();
    // What `scenario` asks that a Redis Cluster cannot give (Redlock's independent masters, server faults,
    // one shared pool), one field-path sentence each; empty when it can run on a cluster. The parser adds
    // these for servers.cluster; the simulation asks again for a cluster the user gave.
    static QStringList clusterProblems(const Scenario &scenario);

private:
    class Fields; // reads one JSON object's fields, remembering which were asked for (scenarioparser.cpp)

    // One section of the scenario each, into `out`; every problem goes to `errors` (through `top` and the
    // section's own Fields).
    static void parseHeader(Fields &top, const QJsonObject &object, Scenario *out, QStringList *errors);
    static void parseServers(Fields &top, Scenario *out, QStringList *errors);
    void parseAlgorithm(Fields &top, const QJsonObject &object, Scenario *out, QStringList *errors) const;
    static void parseCustomLua(Fields &f, Scenario::Algorithm *algorithm);
    static void parseClient(Fields &top, Scenario::Client *client, QStringList *errors);
    static void parseWorkload(Fields &top, Scenario *out, QStringList *errors);
    static void parseResource(Fields &top, Scenario *out, QStringList *errors);
    static void parseFaults(Fields &top, Scenario *out, QStringList *errors);
    static void parseStory(Fields &top, Scenario *out, QStringList *errors);
    static void parseVariants(Fields &top, Scenario *out, QStringList *errors);
    static void parseExpectations(Fields &top, Scenario *out, QStringList *errors);

    QStringList m_algorithmIds;
};
