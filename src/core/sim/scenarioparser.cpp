// ScenarioParser: a small field reader that tracks the JSON path, ranges and known fields.
#include "scenarioparser.h"

#include "locks/customlockscripts.h"

#include "clientcatalog.h"
#include "scenariochecks.h"
#include "scenarionames.h"
#include "scenariowriter.h"

#include "locks/customlockscripts.h"
#include "locks/lockcatalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

using namespace ScenarioNames;

namespace {

int editDistance(const QString &a, const QString &b)
{
    QList<int> previous(b.size() + 1), current(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        current[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j)
            current[j] = std::min(
                {previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(previous, current);
    }
    return previous[b.size()];
}

QString closest(const QString &word, const QStringList &candidates)
{
    QString best;
    int bestDistance = 3; // only suggest near misses
    for (const QString &c : candidates) {
        const int d = editDistance(word, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

QString jsonTypeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("true/false");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("a list");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

QString joinChoices(const QStringList &choices)
{
    if (choices.size() <= 1)
        return choices.join(QString());
    return choices.mid(0, choices.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ")
        + choices.last();
}

} // namespace

// Reads the fields of one JSON object, remembering which ones were asked for.
class ScenarioParser::Fields
{
public:
    Fields(const QJsonObject &object, const QString &path, QStringList *errors)
        : m_object(object)
        , m_path(path)
        , m_errors(errors)
    {
    }

    QString path(const QString &name) const { return m_path.isEmpty() ? name : m_path + u'.' + name; }
    void error(const QString &name, const QString &message) const
    {
        m_errors->append(path(name) + QStringLiteral(": ") + message);
    }
    bool has(const QString &name) const { return m_object.contains(name); }
    QJsonValue value(const QString &name) const { return m_object.value(name); }
    // A field read by other means (or allowed to be null) is not an unknown field.
    void markKnown(const QString &name) { m_known << name; }

    double number(const QString &name, double fallback, double min, double max,
                  const QString &unit = QString())
    {
        m_known << name;
        if (!m_object.contains(name))
            return fallback;
        const QJsonValue v = m_object.value(name);
        if (!v.isDouble()) {
            error(name, QStringLiteral("expected a number%1, got %2").arg(unitSuffix(unit), jsonTypeName(v)));
            return fallback;
        }
        const double d = v.toDouble();
        if (!std::isfinite(d) || d < min || d > max) {
            error(name,
                  QStringLiteral("%1 is out of range; use %2 to %3%4")
                      .arg(QString::number(d), QString::number(min), QString::number(max), unitSuffix(unit)));
            return fallback;
        }
        return d;
    }

    qint64 integer(const QString &name, qint64 fallback, qint64 min, qint64 max,
                   const QString &unit = QString())
    {
        m_known << name;
        if (!m_object.contains(name))
            return fallback;
        const QJsonValue v = m_object.value(name);
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d)) {
            error(name,
                  QStringLiteral("expected a whole number%1, got %2")
                      .arg(unitSuffix(unit), v.isDouble() ? QString::number(d) : jsonTypeName(v)));
            return fallback;
        }
        if (d < double(min) || d > double(max)) {
            error(name,
                  QStringLiteral("%1 is out of range; use %2 to %3%4")
                      .arg(QString::number(d, 'f', 0))
                      .arg(min)
                      .arg(max)
                      .arg(unitSuffix(unit)));
            return fallback;
        }
        return qint64(d);
    }

    bool boolean(const QString &name, bool fallback)
    {
        m_known << name;
        if (!m_object.contains(name))
            return fallback;
        const QJsonValue v = m_object.value(name);
        if (!v.isBool()) {
            error(name, QStringLiteral("expected true or false, got %1").arg(jsonTypeName(v)));
            return fallback;
        }
        return v.toBool();
    }

    // Texts longer than `maxLength` characters are refused: a megabyte title is a mistake (or an attack on
    // whoever displays it), never a scenario.
    QString string(const QString &name, const QString &fallback, bool required = false, int maxLength = 16384)
    {
        m_known << name;
        if (!m_object.contains(name)) {
            if (required)
                error(name, QStringLiteral("is required"));
            return fallback;
        }
        const QJsonValue v = m_object.value(name);
        if (!v.isString()) {
            error(name, QStringLiteral("expected a string, got %1").arg(jsonTypeName(v)));
            return fallback;
        }
        const QString text = v.toString();
        if (text.size() > maxLength) {
            error(name,
                  QStringLiteral("%1 characters is too long; at most %2").arg(text.size()).arg(maxLength));
            return fallback;
        }
        return text;
    }

    // A string from a fixed set; returns its index in `choices`.
    int choice(const QString &name, int fallback, const QStringList &choices)
    {
        m_known << name;
        if (!m_object.contains(name))
            return fallback;
        const QJsonValue v = m_object.value(name);
        const int index = v.isString() ? int(choices.indexOf(v.toString())) : -1;
        if (index < 0) {
            const QString given = v.isString() ? QStringLiteral("'%1'").arg(v.toString()) : jsonTypeName(v);
            const QString hint = v.isString() ? closest(v.toString(), choices) : QString();
            error(name,
                  QStringLiteral("%1 is not allowed; use %2%3")
                      .arg(given, joinChoices(choices),
                           hint.isEmpty() ? QString() : QStringLiteral(" (did you mean %1?)").arg(hint)));
            return fallback;
        }
        return index;
    }

    QJsonObject object(const QString &name)
    {
        m_known << name;
        const QJsonValue v = m_object.value(name);
        if (v.isUndefined())
            return {};
        if (!v.isObject()) {
            error(name, QStringLiteral("expected an object, got %1").arg(jsonTypeName(v)));
            return {};
        }
        return v.toObject();
    }

    QJsonArray array(const QString &name)
    {
        m_known << name;
        const QJsonValue v = m_object.value(name);
        if (v.isUndefined())
            return {};
        if (!v.isArray()) {
            error(name, QStringLiteral("expected a list, got %1").arg(jsonTypeName(v)));
            return {};
        }
        return v.toArray();
    }

    // Every field present but never asked for is a mistake (usually a typo).
    void rejectUnknown() const
    {
        for (const QString &key : m_object.keys()) {
            if (m_known.contains(key))
                continue;
            const QString hint = closest(key, m_known.values());
            error(key,
                  hint.isEmpty() ? QStringLiteral("unknown field; allowed here: %1")
                                       .arg(sortedKnown().join(QStringLiteral(", ")))
                                 : QStringLiteral("unknown field (did you mean %1?)").arg(hint));
        }
    }

private:
    static QString unitSuffix(const QString &unit)
    {
        return unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(unit);
    }
    QStringList sortedKnown() const
    {
        QStringList k = m_known.values();
        k.sort();
        return k;
    }

    QJsonObject m_object;
    QString m_path;
    QStringList *m_errors;
    QSet<QString> m_known;
};

namespace {

constexpr double kMaxMs = 3600.0 * 1000.0; // an hour: anything longer is a typo in a simulation
constexpr int kMaxThreadWorkers = 1024; // one OS thread each
constexpr int kMaxEventWorkers = 10000; // fibers: a connection each, within the server's default maxclients

} // namespace

ScenarioParser::ScenarioParser(QStringList algorithmIds)
    : m_algorithmIds(std::move(algorithmIds))
{
}

QStringList ScenarioParser::defaultAlgorithmIds()
{
    // The catalog's algorithms in its order, then "none", which is no algorithm of the catalog's, and the
    // user's own Lua lock.
    return LockCatalog::ids() << QStringLiteral("none") << LockCatalog::customLuaId();
}

bool ScenarioParser::parse(const QByteArray &json, Scenario *out, QStringList *errors) const
{
    if (json.size() > kMaxFileBytes) {
        errors->append(
            QStringLiteral("the file is %1 bytes; a scenario is at most %2 bytes (is this a scenario?)")
                .arg(json.size())
                .arg(kMaxFileBytes));
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const QByteArray before = json.left(parseError.offset);
        const qsizetype line = before.count('\n') + 1;
        const qsizetype column = parseError.offset - (before.lastIndexOf('\n') + 1) + 1;
        errors->append(QStringLiteral("line %1, column %2: %3 (the file is not valid JSON)")
                           .arg(line)
                           .arg(column)
                           .arg(parseError.errorString()));
        return false;
    }
    if (!doc.isObject()) {
        errors->append(QStringLiteral("the scenario must be a JSON object ({ … })"));
        return false;
    }
    return parse(doc.object(), out, errors);
}

bool ScenarioParser::parse(const QJsonObject &object, Scenario *out, QStringList *errors) const
{
    const qsizetype errorsBefore = errors->size();
    Scenario s;
    Fields top(object, QString(), errors);
    // Section by section; the errors come out in this order.
    parseHeader(top, object, &s, errors);
    parseServers(top, &s, errors);
    parseAlgorithm(top, object, &s, errors);
    parseClient(top, &s.client, errors);
    parseWorkload(top, &s, errors);
    parseResource(top, &s, errors);
    parseFaults(top, &s, errors);
    parseStory(top, &s, errors);
    parseVariants(top, &s, errors);
    parseExpectations(top, &s, errors);
    top.rejectUnknown();
    ScenarioChecks::acrossSections(s, errors);
    if (errors->size() > errorsBefore)
        return false;
    // Every variant must itself be a valid scenario.
    for (qsizetype i = 0; i < s.variants.size(); ++i) {
        Scenario resolved;
        QStringList variantErrors;
        if (!variant(s, int(i), &resolved, &variantErrors)) {
            for (const QString &e : variantErrors)
                errors->append(QStringLiteral("variants[%1] (%2): %3").arg(i).arg(s.variants.at(i).name, e));
        }
    }
    if (errors->size() > errorsBefore)
        return false;
    *out = s;
    return true;
}

// lockscope_scenario (the format's version), id, title, the prose and the kind.
void ScenarioParser::parseHeader(Fields &top, const QJsonObject &object, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    if (!object.contains(QStringLiteral("lockscope_scenario")))
        errors->append(QStringLiteral("lockscope_scenario: is required (the format version, currently %1)")
                           .arg(kFormatVersion));
    s.version = int(
        top.integer(QStringLiteral("lockscope_scenario"), kFormatVersion, kFormatVersion, kFormatVersion));
    s.id = top.string(QStringLiteral("id"), QString(), true, 200);
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]{0,63}$"));
    if (top.has(QStringLiteral("id")) && !s.id.isEmpty() && !idPattern.match(s.id).hasMatch())
        top.error(QStringLiteral("id"),
                  QStringLiteral("'%1' is not allowed; use lower-case letters, digits and '-' (at most 64)")
                      .arg(s.id));
    s.title = top.string(QStringLiteral("title"), QString(), true, 200);
    s.summary = top.string(QStringLiteral("summary"), QString());
    s.teaching = top.string(QStringLiteral("teaching"), QString());
    s.kind = Scenario::Kind(top.choice(QStringLiteral("kind"), 0, kKinds));
}

void ScenarioParser::parseServers(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    Fields f(top.object(QStringLiteral("servers")), QStringLiteral("servers"), errors);
    s.servers.mode = Scenario::Servers::Mode(f.choice(QStringLiteral("mode"), 0, kServerModes));
    s.servers.count = int(f.integer(QStringLiteral("count"), 1, 1, 9));
    s.servers.replicas = int(f.integer(QStringLiteral("replicas"), 0, 0, 2));
    s.servers.keyspaceEvents = f.boolean(QStringLiteral("keyspace_events"), false);
    s.servers.cluster = f.boolean(QStringLiteral("cluster"), false);
    s.servers.sentinel = f.boolean(QStringLiteral("sentinel"), false);
    s.servers.proxy = f.boolean(QStringLiteral("proxy"), false);
    s.servers.restartDelayMs
        = f.number(QStringLiteral("restart_delay_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    f.rejectUnknown();
}

void ScenarioParser::parseAlgorithm(Fields &top, const QJsonObject &object, Scenario *out,
                                    QStringList *errors) const
{
    Scenario &s = *out;
    Fields f(top.object(QStringLiteral("algorithm")), QStringLiteral("algorithm"), errors);
    // With a client, the library is the algorithm: the id is not needed (and not used).
    const bool client = object.contains(QStringLiteral("client"))
        && !object.value(QStringLiteral("client")).isNull();
    if (!object.contains(QStringLiteral("algorithm")) && !client)
        errors->append(QStringLiteral("algorithm: is required (an object with at least an id)"));
    Scenario::Algorithm &a = s.algorithm;
    a.id = f.string(QStringLiteral("id"), a.id, object.contains(QStringLiteral("algorithm")) && !client);
    if (f.has(QStringLiteral("id")) && !m_algorithmIds.contains(a.id)) {
        const QString hint = closest(a.id, m_algorithmIds);
        f.error(QStringLiteral("id"),
                QStringLiteral("'%1' is not an algorithm; use one of: %2%3")
                    .arg(a.id, m_algorithmIds.join(QStringLiteral(", ")),
                         hint.isEmpty() ? QString() : QStringLiteral(" (did you mean %1?)").arg(hint)));
    }
    // 0 is a lock without expiry: a real library may make one (its adapter says no_lease); LockScope's own
    // algorithms always set a lease.
    a.leaseMs = int(f.integer(QStringLiteral("lease_ms"), a.leaseMs, client ? 0 : 1, qint64(kMaxMs),
                              QStringLiteral("milliseconds")));
    a.watchdog = f.boolean(QStringLiteral("watchdog"), a.watchdog);
    a.watchdogPeriodMs = int(f.integer(QStringLiteral("watchdog_period_ms"), 0, 0, qint64(kMaxMs),
                                       QStringLiteral("milliseconds")));
    a.acquireTimeoutMs = int(f.integer(QStringLiteral("acquire_timeout_ms"), a.acquireTimeoutMs, 0,
                                       qint64(kMaxMs), QStringLiteral("milliseconds")));
    a.reentrancy = int(f.integer(QStringLiteral("reentrancy"), 1, 1, 100));
    a.poolSize = int(f.integer(QStringLiteral("pool_size"), 0, 0, 1000));
    a.clock = Scenario::Algorithm::Clock(f.choice(QStringLiteral("clock"), 0, kClocks));
    parseCustomLua(f, &a);
    a.fencing = f.boolean(QStringLiteral("fencing"), a.id == QLatin1String("fenced") || (a.lua && a.lua->fencing()));
    Fields r(f.object(QStringLiteral("retry")), f.path(QStringLiteral("retry")), errors);
    a.retry.strategy = Scenario::Retry::Strategy(r.choice(QStringLiteral("strategy"), 1, kStrategies));
    a.retry.intervalMs
        = int(r.integer(QStringLiteral("interval_ms"), 50, 0, 600000, QStringLiteral("milliseconds")));
    a.retry.jitterMs
        = int(r.integer(QStringLiteral("jitter_ms"), 0, 0, 600000, QStringLiteral("milliseconds")));
    a.retry.maxMs
        = int(r.integer(QStringLiteral("max_ms"), 1000, 1, 600000, QStringLiteral("milliseconds")));
    a.retry.channels = Scenario::Retry::Channels(r.choice(QStringLiteral("pubsub"), 0, kPubSubChannels));
    r.rejectUnknown();
    f.rejectUnknown();
    if (a.watchdogPeriodMs > 0 && a.watchdogPeriodMs >= a.leaseMs)
        f.error(
            QStringLiteral("watchdog_period_ms"),
            QStringLiteral(
                "%1 ms is not shorter than lease_ms (%2 ms): the lock would expire before its renewal")
                .arg(a.watchdogPeriodMs)
                .arg(a.leaseMs));
}

// custom-lua's scripts: "dir" (read now, as --lua reads a folder) or "lua" (inline, as a written story keeps
// them). Other algorithms take neither.
void ScenarioParser::parseCustomLua(Fields &f, Scenario::Algorithm *a)
{
    const bool custom = a->id == LockCatalog::customLuaId();
    const QString dir = f.string(QStringLiteral("dir"), QString(), false, 4096);
    const QJsonObject inline_ = f.object(QStringLiteral("lua"));
    if (!custom) {
        if (f.has(QStringLiteral("dir")) || f.has(QStringLiteral("lua")))
            f.error(f.has(QStringLiteral("dir")) ? QStringLiteral("dir") : QStringLiteral("lua"),
                    QStringLiteral("only the custom-lua algorithm takes scripts"));
        return;
    }
    if (f.has(QStringLiteral("dir")) == f.has(QStringLiteral("lua"))) {
        f.error(QStringLiteral("id"), QStringLiteral("custom-lua needs its scripts: \"dir\" (a folder with acquire.lua "
                                                     "and release.lua) or \"lua\" (the scripts inline), one of them"));
        return;
    }
    CustomLockScripts::Problem problem;
    a->lua = f.has(QStringLiteral("dir")) ? CustomLockScripts::fromDirectory(dir, &problem)
                                          : CustomLockScripts::fromJson(inline_, &problem);
    if (!a->lua)
        f.error(f.has(QStringLiteral("dir")) ? QStringLiteral("dir") : QStringLiteral("lua"), problem.text());
}

// The "client" section: a shipped adapter or a command, the adapter's options, the reply and hello timeouts. null (a
// variant going back to a built-in algorithm) and absence both mean no client.
void ScenarioParser::parseClient(Fields &top, Scenario::Client *client, QStringList *errors)
{
    top.markKnown(QStringLiteral("client"));
    if (!top.has(QStringLiteral("client")) || top.value(QStringLiteral("client")).isNull())
        return;
    Fields f(top.object(QStringLiteral("client")), QStringLiteral("client"), errors);
    client->adapter = f.string(QStringLiteral("adapter"), QString(), false, 100);
    const QJsonArray command = f.array(QStringLiteral("command"));
    for (const QJsonValue &v : command) {
        if (!v.isString() || v.toString().isEmpty()) {
            f.error(QStringLiteral("command"), QStringLiteral("expected a list of non-empty strings (argv)"));
            client->command.clear();
            break;
        }
        client->command << v.toString();
    }
    client->options = f.object(QStringLiteral("options"));
    client->replyTimeoutMs = int(f.integer(QStringLiteral("reply_timeout_ms"), client->replyTimeoutMs, 100,
                                           600000, QStringLiteral("milliseconds")));
    client->helloTimeoutMs = int(f.integer(QStringLiteral("hello_timeout_ms"), client->helloTimeoutMs, 100,
                                           600000, QStringLiteral("milliseconds")));
    f.rejectUnknown();
    if (client->adapter.isEmpty() && client->command.isEmpty() && !client->options.isEmpty())
        // What a variant's {"client": {"options": …}} leaves once the scenario itself has no client.
        f.error(QStringLiteral("adapter"),
                QStringLiteral("options are given for a client, but no client is named (adapter or command): "
                               "a variant may be changing the options of a client the scenario no longer has"));
    else if (client->adapter.isEmpty() == client->command.isEmpty())
        f.error(client->adapter.isEmpty() ? QStringLiteral("adapter") : QStringLiteral("command"),
                QStringLiteral("give either adapter (a shipped adapter: %1) or command (any program speaking "
                               "the client protocol), not both")
                    .arg(ClientCatalog::ids().join(QStringLiteral(", "))));
    else if (!client->adapter.isEmpty() && !ClientCatalog::find(client->adapter)) {
        const QString hint = closest(client->adapter, ClientCatalog::ids());
        f.error(QStringLiteral("adapter"),
                QStringLiteral("'%1' is not a shipped adapter; use %2%3")
                    .arg(client->adapter, joinChoices(ClientCatalog::ids()),
                         hint.isEmpty() ? QString() : QStringLiteral(" (did you mean %1?)").arg(hint)));
    }
}

void ScenarioParser::parseWorkload(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    Fields f(top.object(QStringLiteral("workload")), QStringLiteral("workload"), errors);
    Scenario::Workload &w = s.workload;
    w.engine = Scenario::Workload::Engine(f.choice(QStringLiteral("engine"), 0, kEngines));
    const bool events = w.engine == Scenario::Workload::Engine::Events;
    if (events && s.client.isSet())
        f.error(QStringLiteral("engine"),
                QStringLiteral("an external client's workers are processes of their own; \"events\" runs "
                               "LockScope's own workers as fibers"));
    w.processes = int(f.integer(QStringLiteral("processes"), w.processes, 1, events ? 1000 : 64));
    w.threadsPerProcess
        = int(f.integer(QStringLiteral("threads_per_process"), s.client.isSet() ? 1 : w.threadsPerProcess, 1,
                        events ? 10000 : 512));
    // A thread each stops at about a thousand on a desktop; fibers at what the server's clients allow.
    const int maxWorkers = events ? kMaxEventWorkers : kMaxThreadWorkers;
    if (w.processes * w.threadsPerProcess > maxWorkers)
        f.error(QStringLiteral("threads_per_process"),
                QStringLiteral("%1 workers in all is too many; at most %2 (processes × threads_per_process)%3")
                    .arg(w.processes * w.threadsPerProcess)
                    .arg(maxWorkers)
                    .arg(events ? QString() : QStringLiteral("; the \"events\" engine takes up to %1").arg(kMaxEventWorkers)));
    w.locks = int(f.integer(QStringLiteral("locks"), w.locks, 1, 100000));
    w.lockChoice
        = Scenario::Workload::LockChoice(f.choice(QStringLiteral("lock_choice"), 0, kLockChoices));
    w.keyPrefix = f.string(QStringLiteral("key_prefix"), w.keyPrefix);
    if (w.keyPrefix.isEmpty())
        f.error(QStringLiteral("key_prefix"),
                QStringLiteral("must not be empty (the run would use bare key names)"));
    w.durationS
        = f.number(QStringLiteral("duration_s"), w.durationS, 0.1, 3600, QStringLiteral("seconds"));
    w.operations = f.integer(QStringLiteral("operations"), 0, 0, 100000000);
    w.thinkMs = f.number(QStringLiteral("think_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    w.startStaggerMs
        = f.number(QStringLiteral("start_stagger_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    w.seed = quint64(f.integer(QStringLiteral("seed"), 1, 0, (qint64(1) << 53)));
    Fields c(f.object(QStringLiteral("critical_section")), f.path(QStringLiteral("critical_section")),
             errors);
    Scenario::CriticalSection &cs = w.criticalSection;
    cs.distribution = Scenario::CriticalSection::Distribution(
        c.choice(QStringLiteral("distribution"), 0, kDistributions));
    cs.ms = c.number(QStringLiteral("ms"), 1, 0, kMaxMs, QStringLiteral("milliseconds"));
    cs.minMs = c.number(QStringLiteral("min_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    cs.maxMs = c.number(QStringLiteral("max_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    cs.meanMs = c.number(QStringLiteral("mean_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
    if (cs.distribution == Scenario::CriticalSection::Distribution::Uniform && cs.minMs > cs.maxMs)
        c.error(QStringLiteral("min_ms"),
                QStringLiteral("%1 is above max_ms (%2)").arg(cs.minMs).arg(cs.maxMs));
    if (cs.distribution == Scenario::CriticalSection::Distribution::Exponential && cs.meanMs <= 0)
        c.error(QStringLiteral("mean_ms"),
                QStringLiteral("an exponential critical section needs a mean above 0"));
    c.rejectUnknown();
    f.rejectUnknown();
}

void ScenarioParser::parseResource(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    Fields f(top.object(QStringLiteral("resource")), QStringLiteral("resource"), errors);
    s.resource.counter = f.boolean(QStringLiteral("counter"), true);
    s.resource.counterInitial
        = f.integer(QStringLiteral("counter_initial"), 1000, -(qint64(1) << 53), qint64(1) << 53);
    s.resource.fencedStore = f.boolean(QStringLiteral("fenced_store"), false);
    f.rejectUnknown();
}

void ScenarioParser::parseFaults(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    const QJsonArray faults = top.array(QStringLiteral("faults"));
    for (qsizetype i = 0; i < faults.size(); ++i) {
        const QString path = QStringLiteral("faults[%1]").arg(i);
        if (!faults.at(i).isObject()) {
            errors->append(path + QStringLiteral(": expected an object, got ") + jsonTypeName(faults.at(i)));
            continue;
        }
        Fields f(faults.at(i).toObject(), path, errors);
        Scenario::Fault fault;
        if (!f.has(QStringLiteral("type")))
            f.error(QStringLiteral("type"),
                    QStringLiteral("is required; use %1").arg(joinChoices(kFaultTypes)));
        fault.type = Scenario::Fault::Type(f.choice(QStringLiteral("type"), 0, kFaultTypes));
        fault.atMs = f.number(QStringLiteral("at_ms"), -1, 0, kMaxMs, QStringLiteral("milliseconds"));
        fault.probability
            = f.number(QStringLiteral("probability"), 0, 0, 1, QStringLiteral("chance per second"));
        if (fault.atMs < 0 && fault.probability <= 0)
            f.error(QStringLiteral("at_ms"),
                    QStringLiteral("give at_ms (when) or probability (chance per second)"));
        fault.process = int(f.integer(QStringLiteral("process"), -1, -1, 63));
        fault.server = int(f.integer(QStringLiteral("server"), 0, 0, 8));
        fault.replica = f.boolean(QStringLiteral("replica"), false);
        fault.durationMs
            = f.number(QStringLiteral("duration_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
        fault.delayMs = f.number(QStringLiteral("delay_ms"), 0, 0, 60000, QStringLiteral("milliseconds"));
        fault.where = Scenario::Fault::Where(f.choice(QStringLiteral("where"), 0, kWhere));
        fault.direction = Scenario::Fault::Direction(f.choice(QStringLiteral("direction"), 0, kDirections));
        fault.skewMs
            = f.number(QStringLiteral("skew_ms"), 0, -kMaxMs, kMaxMs, QStringLiteral("milliseconds"));
        fault.rate = f.number(QStringLiteral("rate"), 1, 0.01, 100);
        fault.restartDelayMs
            = f.number(QStringLiteral("restart_delay_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
        fault.once = f.boolean(QStringLiteral("once"), false);
        const QJsonArray delayedServers = f.array(QStringLiteral("servers"));
        for (qsizetype k = 0; k < delayedServers.size(); ++k) {
            const QJsonValue v = delayedServers.at(k);
            if (!v.isDouble() || v.toDouble() != double(v.toInt()) || v.toInt() < 0 || v.toInt() > 8)
                f.error(QStringLiteral("servers"),
                        QStringLiteral("expected a list of server numbers (0 to 8)"));
            else
                fault.servers << v.toInt();
        }
        f.rejectUnknown();
        const bool needsDuration = fault.type == Scenario::Fault::Type::Pause
            || fault.type == Scenario::Fault::Type::ServerPause
            || fault.type == Scenario::Fault::Type::Partition;
        if (needsDuration && fault.durationMs <= 0)
            f.error(QStringLiteral("duration_ms"),
                    QStringLiteral("a %1 needs a duration above 0").arg(kFaultTypes.at(int(fault.type))));
        if ((fault.type == Scenario::Fault::Type::Delay || fault.type == Scenario::Fault::Type::GetDelDelay)
            && fault.delayMs <= 0)
            f.error(QStringLiteral("delay_ms"),
                    QStringLiteral("a %1 fault needs delay_ms above 0").arg(kFaultTypes.at(int(fault.type))));
        s.faults.append(fault);
    }
}

void ScenarioParser::parseStory(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    Fields f(top.object(QStringLiteral("story")), QStringLiteral("story"), errors);
    const QJsonArray actors = f.array(QStringLiteral("actors"));
    for (qsizetype i = 0; i < actors.size(); ++i) {
        const QString name = actors.at(i).toString();
        if (name.isEmpty() || s.story.actors.contains(name))
            errors->append(QStringLiteral("story.actors[%1]: expected a unique, non-empty name").arg(i));
        else
            s.story.actors << name;
    }
    const QJsonArray steps = f.array(QStringLiteral("steps"));
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const QString path = QStringLiteral("story.steps[%1]").arg(i);
        Fields st(steps.at(i).toObject(), path, errors);
        if (!steps.at(i).isObject()) {
            errors->append(path + QStringLiteral(": expected an object"));
            continue;
        }
        Scenario::Step step;
        step.atMs = st.number(QStringLiteral("at_ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
        if (!st.has(QStringLiteral("action")))
            st.error(QStringLiteral("action"),
                     QStringLiteral("is required; use %1").arg(joinChoices(kActions)));
        step.action = Scenario::Step::Action(
            st.choice(QStringLiteral("action"), int(Scenario::Step::Action::Note), kActions));
        step.actor = st.string(QStringLiteral("actor"), QString());
        step.ms = st.number(QStringLiteral("ms"), 0, 0, kMaxMs, QStringLiteral("milliseconds"));
        step.server = int(st.integer(QStringLiteral("server"), 0, 0, 8));
        step.replica = st.boolean(QStringLiteral("replica"), false);
        step.note = st.string(QStringLiteral("note"), QString());
        st.rejectUnknown();
        const bool serverAction = step.action == Scenario::Step::Action::ServerRestart
            || step.action == Scenario::Step::Action::ServerPause
            || step.action == Scenario::Step::Action::ServerKill
            || step.action == Scenario::Step::Action::Failover
            || step.action == Scenario::Step::Action::Note;
        if (!serverAction && !s.story.actors.contains(step.actor))
            st.error(QStringLiteral("actor"),
                     step.actor.isEmpty()
                         ? QStringLiteral("is required for '%1'").arg(kActions.at(int(step.action)))
                         : QStringLiteral("'%1' is not one of story.actors (%2)")
                               .arg(step.actor, s.story.actors.join(QStringLiteral(", "))));
        const bool needsMs = step.action == Scenario::Step::Action::Work
            || step.action == Scenario::Step::Action::Pause
            || step.action == Scenario::Step::Action::Delay
            || step.action == Scenario::Step::Action::ServerPause
            || step.action == Scenario::Step::Action::Partition;
        if (needsMs && step.ms <= 0)
            st.error(QStringLiteral("ms"),
                     QStringLiteral("'%1' needs ms above 0").arg(kActions.at(int(step.action))));
        // Against the last step kept, not steps[i - 1]: a step that is not an object was skipped.
        if (!s.story.steps.isEmpty() && step.atMs < s.story.steps.last().atMs)
            st.error(
                QStringLiteral("at_ms"),
                QStringLiteral("%1 is earlier than the step before it (%2); list steps in time order")
                    .arg(step.atMs)
                    .arg(s.story.steps.last().atMs));
        s.story.steps.append(step);
    }
    f.rejectUnknown();
    if (s.kind == Scenario::Kind::Story && (s.story.actors.isEmpty() || s.story.steps.isEmpty()))
        errors->append(QStringLiteral("story: a story scenario needs actors and steps"));
    if (s.kind == Scenario::Kind::Workload && !s.story.steps.isEmpty())
        errors->append(QStringLiteral("story: steps are only used when kind is \"story\""));
}

void ScenarioParser::parseVariants(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    const QJsonArray variants = top.array(QStringLiteral("variants"));
    for (qsizetype i = 0; i < variants.size(); ++i) {
        const QString path = QStringLiteral("variants[%1]").arg(i);
        QJsonObject overrides = variants.at(i).toObject();
        const QString name = overrides.take(QStringLiteral("name")).toString();
        static const QRegularExpression namePattern(QStringLiteral("^[a-z][a-z0-9_-]{0,31}$"));
        if (!variants.at(i).isObject())
            errors->append(path
                           + QStringLiteral(": expected an object with a name and the fields it changes"));
        else if (!namePattern.match(name).hasMatch())
            errors->append(
                path
                + QStringLiteral(".name: '%1' is not allowed; use a short lower-case name like \"fenced\"")
                      .arg(name));
        else if (s.variantNames().contains(name))
            errors->append(path + QStringLiteral(".name: '%1' is used twice").arg(name));
        else if (overrides.contains(QStringLiteral("variants"))
                 || overrides.contains(QStringLiteral("expect")) || overrides.contains(QStringLiteral("id")))
            errors->append(path + QStringLiteral(": a variant may not change id, expect or variants"));
        else
            s.variants.append(Scenario::Variant {name, overrides});
    }
}

void ScenarioParser::parseExpectations(Fields &top, Scenario *out, QStringList *errors)
{
    Scenario &s = *out;
    const QJsonArray expect = top.array(QStringLiteral("expect"));
    for (qsizetype i = 0; i < expect.size(); ++i) {
        Expectation e;
        QString error;
        if (!expect.at(i).isString())
            errors->append(QStringLiteral("expect[%1]: expected a string like \"overlaps > 0\"").arg(i));
        else if (!Expectation::parse(expect.at(i).toString(), &e, &error, s.variantNames()))
            errors->append(QStringLiteral("expect[%1]: %2").arg(i).arg(error));
        else
            s.expect.append(e);
    }
}

QStringList ScenarioParser::clusterProblems(const Scenario &s)
{
    return ScenarioChecks::cluster(s);
}

QJsonObject ScenarioParser::merged(const QJsonObject &base, const QJsonObject &overrides)
{
    QJsonObject result = base;
    for (auto it = overrides.constBegin(); it != overrides.constEnd(); ++it) {
        const QJsonValue existing = result.value(it.key());
        if (existing.isObject() && it.value().isObject())
            result.insert(it.key(), merged(existing.toObject(), it.value().toObject()));
        else
            result.insert(it.key(), it.value());
    }
    return result;
}

bool ScenarioParser::variant(const Scenario &base, int index, Scenario *out, QStringList *errors) const
{
    if (index < 0 || index >= base.variants.size()) {
        errors->append(QStringLiteral("no variant %1").arg(index));
        return false;
    }
    const Scenario::Variant &v = base.variants.at(index);
    QJsonObject json = toJson(base);
    json.remove(QStringLiteral("variants"));
    json.remove(QStringLiteral("expect"));
    // A variant that switches algorithm gets that algorithm's own fencing default, not the base's.
    const QJsonObject algorithmOverrides = v.overrides.value(QStringLiteral("algorithm")).toObject();
    if (algorithmOverrides.contains(QStringLiteral("id"))
        && !algorithmOverrides.contains(QStringLiteral("fencing"))) {
        QJsonObject algorithm = json.value(QStringLiteral("algorithm")).toObject();
        algorithm.remove(QStringLiteral("fencing"));
        json.insert(QStringLiteral("algorithm"), algorithm);
    }
    json = merged(json, v.overrides);
    if (!parse(json, out, errors))
        return false;
    out->id = base.id + u'.' + v.name;
    return true;
}
QJsonObject ScenarioParser::toJson(const Scenario &s)
{
    return ScenarioWriter::toJson(s);
}
