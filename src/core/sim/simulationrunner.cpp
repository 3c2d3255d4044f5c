// SimulationRunner: variants in sequence, expectations over all of them.
#include "simulationrunner.h"

#include "scenarioparser.h"

#include <QJsonArray>

bool SimulationRunner::Outcome::passed() const
{
    if (!ok() || interrupted)
        return false;
    for (const Expectation::Check &c : checks) {
        if (!c.passed)
            return false;
    }
    return true;
}

QList<Expectation::Check> SimulationRunner::judge(const Scenario &scenario, const QList<Run> &runs)
{
    QHash<QString, double> values;
    for (const Run &r : runs) {
        const QHash<QString, double> v = r.report.expectationValues();
        for (auto it = v.constBegin(); it != v.constEnd(); ++it)
            values.insert(r.variant.isEmpty() ? it.key() : r.variant + u'.' + it.key(), it.value());
    }
    QList<Expectation::Check> checks;
    for (const Expectation &e : scenario.expect)
        checks << e.evaluate(values);
    return checks;
}

SimulationRunner::Outcome SimulationRunner::run(const Scenario &scenario, const Simulation::Options &options,
                                                const std::atomic_bool *stop, const Progress &progress,
                                                const Finished &finished, int progressMs)
{
    Outcome outcome;
    QList<Scenario> scenarios;
    QStringList names;
    if (scenario.variants.isEmpty()) {
        scenarios << scenario;
        names << QString();
    } else {
        const ScenarioParser parser;
        for (int i = 0; i < scenario.variants.size(); ++i) {
            Scenario v;
            QStringList errors;
            if (!parser.variant(scenario, i, &v, &errors)) {
                outcome.error = QStringLiteral("variant %1: %2")
                                    .arg(scenario.variants.at(i).name, errors.join(QStringLiteral("; ")));
                return outcome;
            }
            scenarios << v;
            names << scenario.variants.at(i).name;
        }
    }
    for (int i = 0; i < scenarios.size(); ++i) {
        Simulation simulation(scenarios.at(i), options);
        simulation.start();
        while (!simulation.waitFinished(progressMs)) {
            if (progress)
                progress(i, int(scenarios.size()), names.at(i), simulation);
            if (stop && stop->load()) {
                simulation.requestStop();
                outcome.interrupted = true;
            }
        }
        if (simulation.state() == Simulation::State::Failed) {
            outcome.error = names.at(i).isEmpty()
                ? simulation.errorString()
                : QStringLiteral("%1: %2").arg(names.at(i), simulation.errorString());
            break;
        }
        if (finished)
            finished(names.at(i), simulation);
        RunReport report = simulation.report();
        report.scenario = scenario.id;
        outcome.runs << Run {names.at(i), report};
        if (const QString failure = report.failure(); !failure.isEmpty()) {
            // The run is kept (its report shows what happened), but it is no evidence about the scenario.
            outcome.error
                = names.at(i).isEmpty() ? failure : QStringLiteral("%1: %2").arg(names.at(i), failure);
            break;
        }
        if (outcome.interrupted)
            break;
    }
    outcome.checks = judge(scenario, outcome.runs);
    return outcome;
}

QList<RunComparison::Row> SimulationRunner::Outcome::comparison() const
{
    QList<QPair<QString, RunReport>> list;
    for (const Run &r : runs)
        list.append({r.variant, r.report});
    return RunComparison::rows(list);
}

QJsonObject SimulationRunner::Outcome::toJson() const
{
    QJsonArray checkList;
    for (const Expectation::Check &c : checks)
        checkList.append(c.toJson());
    const QJsonObject expect {{QStringLiteral("passed"), passed()}, {QStringLiteral("checks"), checkList}};
    QJsonObject result;
    if (runs.size() == 1 && runs.first().variant.isEmpty()) {
        result = runs.first().report.toJson();
    } else {
        QJsonObject variants;
        for (const Run &r : runs)
            variants.insert(r.variant, r.report.toJson());
        if (!runs.isEmpty()) {
            result.insert(QStringLiteral("scenario"), runs.first().report.scenario);
            result.insert(QStringLiteral("title"), runs.first().report.title);
        }
        result.insert(QStringLiteral("variants"), variants);
        // The comparison a reader wants first: one row per variant, with what happened to the data.
        result.insert(QStringLiteral("comparison"), RunComparison::toJson(comparison()));
    }
    result.insert(QStringLiteral("expect"), expect);
    if (!error.isEmpty())
        result.insert(QStringLiteral("error"), error);
    if (interrupted)
        result.insert(QStringLiteral("interrupted"), true);
    return result;
}

QString SimulationRunner::Outcome::summaryText() const
{
    QString text;
    for (const Run &r : runs) {
        RunReport report = r.report;
        report.checks.clear(); // judged below, across runs
        if (!r.variant.isEmpty())
            text += QStringLiteral("── variant %1 ──\n").arg(r.variant);
        text += report.summaryText();
    }
    if (runs.size() > 1 || (!runs.isEmpty() && !runs.first().variant.isEmpty())) {
        text += QStringLiteral("── side by side: what each run did to the lock and the data ──\n");
        for (const QString &line : RunComparison::textTable(comparison()))
            text += QStringLiteral("  %1\n").arg(line);
    }
    if (!error.isEmpty())
        text += QStringLiteral("ERROR: %1\n").arg(error);
    if (interrupted)
        text += QStringLiteral("interrupted before the end\n");
    if (!ok()) {
        // A run that failed showed nothing to judge: its expectations are neither met nor missed.
        if (!checks.isEmpty())
            text += QStringLiteral("expectations not judged: the run did not complete\n");
        return text;
    }
    // They say what the run must show, which may be a lock failing: not a verdict on the lock.
    if (!checks.isEmpty())
        text += QStringLiteral("what the scenario expects the run to show:\n");
    for (const Expectation::Check &c : checks)
        text += QStringLiteral("  %1 expect %2 (actual %3, compared with %4)\n")
                    .arg(c.passed ? QStringLiteral("✔") : QStringLiteral("✘"), c.expectation)
                    .arg(c.actual)
                    .arg(c.compared);
    if (!checks.isEmpty() && ok())
        text += passed() ? QStringLiteral("PASSED\n")
                         : QStringLiteral("FAILED: the run did not show what the scenario expects\n");
    return text;
}
