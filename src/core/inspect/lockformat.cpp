// LockFormat: reading one format entry, strictly: an unknown or misspelt field is an error, so a user's
// format file never half-works in silence.
#include "lockformat.h"

#include "locknames.h"

#include "locks/redissonnames.h"

#include <QJsonArray>
#include <QRegularExpressionMatchIterator>
#include <QSet>

namespace {

const QString kUuid = QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

// Anchored, with the {uuid} shorthand expanded; errors name the field.
bool compile(const QJsonObject &o, const QString &field, QRegularExpression *out, QString *error)
{
    if (!o.contains(field))
        return true;
    if (!o.value(field).isString()) {
        *error = QStringLiteral("\"%1\" must be a regular expression in a string").arg(field);
        return false;
    }
    QString pattern = o.value(field).toString();
    pattern.replace(QLatin1String("{uuid}"), kUuid);
    // Patterns describe whole keys, values and fields: anchored, so "lock" never matches "blocklist".
    QRegularExpression re(QRegularExpression::anchoredPattern(pattern));
    if (!re.isValid()) {
        *error = QStringLiteral("\"%1\" is not a valid regular expression: %2 (at character %3)")
                     .arg(field, re.errorString())
                     .arg(re.patternErrorOffset());
        return false;
    }
    re.optimize();
    *out = re;
    return true;
}

bool text(const QJsonObject &o, const QString &field, QString *out, QString *error, bool required = false)
{
    if (!o.contains(field)) {
        if (required)
            *error = QStringLiteral("\"%1\" is missing").arg(field);
        return !required;
    }
    if (!o.value(field).isString()) {
        *error = QStringLiteral("\"%1\" must be a string").arg(field);
        return false;
    }
    *out = o.value(field).toString();
    return true;
}

// Booleans, numbers and lists must have their JSON type: "true" in quotes is a mistake, not false.
bool typed(const QJsonObject &o, const QStringList &booleans, const QStringList &numbers,
           const QStringList &lists, QString *error)
{
    for (const QString &b : booleans) {
        if (o.contains(b) && !o.value(b).isBool()) {
            *error = QStringLiteral("\"%1\" must be true or false").arg(b);
            return false;
        }
    }
    for (const QString &n : numbers) {
        if (o.contains(n) && !o.value(n).isDouble()) {
            *error = QStringLiteral("\"%1\" must be a number").arg(n);
            return false;
        }
    }
    for (const QString &l : lists) {
        if (o.contains(l) && !o.value(l).isArray()) {
            *error = QStringLiteral("\"%1\" must be a list").arg(l);
            return false;
        }
    }
    return true;
}

bool onlyKnownFields(const QJsonObject &o, const QStringList &known, const QString &where, QString *error)
{
    for (const QString &k : o.keys()) {
        if (!known.contains(k)) {
            *error = QStringLiteral("unknown field \"%1\"%2 (known: %3)")
                         .arg(k, where, known.join(QStringLiteral(", ")));
            return false;
        }
    }
    return true;
}

QStringList groupNames(const QList<const QRegularExpression *> &patterns)
{
    QStringList names {QStringLiteral("key"), QStringLiteral("value"), QStringLiteral("holder")};
    for (const QRegularExpression *re : patterns) {
        for (const QString &n : re->namedCaptureGroups()) {
            if (!n.isEmpty())
                names << n;
        }
    }
    return names;
}

bool templateOk(const FormatTemplate &t, const QStringList &groups, const QString &field, QString *error)
{
    for (const QString &n : t.names()) {
        if (!groups.contains(n)) {
            *error
                = QStringLiteral("\"%1\" uses ${%2}, but no pattern of the format has a group of that name "
                                 "(groups: %3)")
                      .arg(field, n, groups.join(QStringLiteral(", ")));
            return false;
        }
    }
    return true;
}

} // namespace

FormatTemplate::FormatTemplate(const QString &text)
    : m_text(text)
{
}

QStringList FormatTemplate::names() const
{
    QStringList out;
    static const QRegularExpression placeholder(
        QStringLiteral("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(\\|[^}]*)?\\}"));
    QRegularExpressionMatchIterator it = placeholder.globalMatch(m_text);
    while (it.hasNext())
        out << it.next().captured(1);
    return out;
}

QByteArray FormatTemplate::expand(const QHash<QString, QByteArray> &values) const
{
    QByteArray out;
    const QByteArray t = m_text.toUtf8();
    qsizetype i = 0;
    while (i < t.size()) {
        if (t.at(i) == '$' && i + 1 < t.size() && t.at(i + 1) == '{') {
            const qsizetype end = t.indexOf('}', i + 2);
            if (end > 0) {
                const QByteArray spec = t.mid(i + 2, end - i - 2);
                const qsizetype bar = spec.indexOf('|');
                const QString name = QString::fromUtf8(bar < 0 ? spec : spec.left(bar));
                const QByteArray filter = bar < 0 ? QByteArray() : spec.mid(bar + 1);
                QByteArray v = values.value(name);
                if (filter == "hex") {
                    v = v.toHex(); // raw bytes (Redisson's permit ids) as the library's API shows them
                } else if (filter == "braced") {
                    v = RedissonNames::rwKeyPrefix(v); // {N}, or N itself when it holds a brace
                } else if (!filter.isEmpty()) {
                    bool ok = false;
                    const int keep = filter.toInt(&ok);
                    if (ok && keep > 0 && v.size() > keep)
                        v = v.left(keep) + "…";
                }
                out += v;
                i = end + 1;
                continue;
            }
        }
        out += t.at(i++);
    }
    return out;
}

QString LockFormat::shapeName(Shape shape)
{
    switch (shape) {
    case Shape::Token:
        return QStringLiteral("token");
    case Shape::Flag:
        return QStringLiteral("flag");
    case Shape::Counter:
        return QStringLiteral("counter");
    case Shape::OwnerHash:
        return QStringLiteral("owner-hash");
    case Shape::HolderHash:
        return QStringLiteral("holder-hash");
    case Shape::HolderZset:
        return QStringLiteral("holder-zset");
    }
    return {};
}

bool LockFormat::fromJson(const QJsonObject &o, const QString &library, const QStringList &checked,
                          LockFormat *out, QString *error)
{
    static const QStringList known {"id",
                                    "name",
                                    "library",
                                    "checked",
                                    "kind",
                                    "type",
                                    "shape",
                                    "priority",
                                    "key",
                                    "key_contains",
                                    "needs_lock_name",
                                    "value",
                                    "field",
                                    "ignored_fields",
                                    "mode_field",
                                    "write_suffix",
                                    "member",
                                    "write_member",
                                    "time",
                                    "decode",
                                    "value_is",
                                    "owner",
                                    "ttl",
                                    "renewal",
                                    "companions",
                                    "companion_of",
                                    "channels",
                                    "job",
                                    "group",
                                    "also",
                                    "unless_named",
                                    "note",
                                    "note_when",
                                    "data_identifies",
                                    "needs_ttl",
                                    "key_identifies",
                                    "needs_shared_value",
                                    "owner_in_value",
                                    "lock_key",
                                    "value_length",
                                    "field_length",
                                    "member_length",
                                    "value_starts"};
    if (!onlyKnownFields(o, known, QString(), error))
        return false;
    if (!typed(o,
               {"needs_lock_name", "needs_ttl", "data_identifies", "owner_in_value", "key_identifies",
                "needs_shared_value"},
               {"priority"}, {"checked", "companions", "companion_of", "channels", "also", "unless_named"},
               error))
        return false;
    LockFormat f;
    if (!text(o, QStringLiteral("id"), &f.id, error, true)
        || !text(o, QStringLiteral("name"), &f.name, error, true))
        return false;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    if (!idPattern.match(f.id).hasMatch()) {
        *error = QStringLiteral("\"id\" must be lower-case letters, digits and dashes, not \"%1\"").arg(f.id);
        return false;
    }
    f.library = library;
    if (!text(o, QStringLiteral("library"), &f.library, error))
        return false;
    if (f.library.isEmpty()) {
        *error = QStringLiteral("\"library\" is missing (in the format or at the top of the file)");
        return false;
    }
    f.checked = checked;
    if (o.contains(QStringLiteral("checked"))) {
        f.checked.clear();
        for (const QJsonValue &v : o.value(QStringLiteral("checked")).toArray())
            f.checked << v.toString();
    }

    QString kind, type, shape, time, ttl;
    if (!text(o, QStringLiteral("kind"), &kind, error, true)
        || !text(o, QStringLiteral("type"), &type, error, true)
        || !text(o, QStringLiteral("shape"), &shape, error, true)
        || !text(o, QStringLiteral("time"), &time, error) || !text(o, QStringLiteral("ttl"), &ttl, error)
        || !text(o, QStringLiteral("decode"), &f.decode, error)
        || !text(o, QStringLiteral("value_is"), &f.valueIs, error)
        || !text(o, QStringLiteral("note"), &f.note, error)
        || !text(o, QStringLiteral("note_when"), &f.noteWhen, error))
        return false;
    if (!f.noteWhen.isEmpty() && f.noteWhen != QLatin1String("no-ttl")
        && f.noteWhen != QLatin1String("ttl")) {
        *error = QStringLiteral("\"note_when\" must be no-ttl or ttl, not \"%1\"").arg(f.noteWhen);
        return false;
    }
    if (!LockKinds::fromName(kind, &f.kind)) {
        QStringList kinds;
        for (LockKind k : LockKinds::all())
            kinds << LockKinds::name(k);
        *error
            = QStringLiteral("\"kind\" \"%1\" is not one of %2").arg(kind, kinds.join(QStringLiteral(", ")));
        return false;
    }
    if (type != QLatin1String("string") && type != QLatin1String("hash") && type != QLatin1String("zset")) {
        *error = QStringLiteral("\"type\" must be string, hash or zset, not \"%1\"").arg(type);
        return false;
    }
    f.type = type.toLatin1();
    const QHash<QString, QPair<Shape, QByteArray>> shapes {
        {QStringLiteral("token"), {Shape::Token, "string"}},
        {QStringLiteral("flag"), {Shape::Flag, "string"}},
        {QStringLiteral("counter"), {Shape::Counter, "string"}},
        {QStringLiteral("owner-hash"), {Shape::OwnerHash, "hash"}},
        {QStringLiteral("holder-hash"), {Shape::HolderHash, "hash"}},
        {QStringLiteral("holder-zset"), {Shape::HolderZset, "zset"}},
    };
    if (!shapes.contains(shape)) {
        *error
            = QStringLiteral("\"shape\" \"%1\" is not one of token, flag, counter, owner-hash, holder-hash, "
                             "holder-zset")
                  .arg(shape);
        return false;
    }
    f.shape = shapes.value(shape).first;
    if (shapes.value(shape).second != f.type) {
        *error = QStringLiteral("shape %1 needs type %2, not %3")
                     .arg(shape, QString::fromLatin1(shapes.value(shape).second), type);
        return false;
    }
    const QHash<QString, Time> times {{QString(), Time::None},
                                      {QStringLiteral("expires-ms"), Time::ExpiresMs},
                                      {QStringLiteral("expires-s"), Time::ExpiresS},
                                      {QStringLiteral("acquired-ms"), Time::AcquiredMs},
                                      {QStringLiteral("acquired-s"), Time::AcquiredS}};
    if (!times.contains(time)) {
        *error
            = QStringLiteral("\"time\" \"%1\" is not one of expires-ms, expires-s, acquired-ms, acquired-s")
                  .arg(time);
        return false;
    }
    f.time = times.value(time);
    if (ttl.isEmpty() || ttl == QLatin1String("optional"))
        f.ttl = Ttl::Optional;
    else if (ttl == QLatin1String("always"))
        f.ttl = Ttl::Always;
    else if (ttl == QLatin1String("never"))
        f.ttl = Ttl::Never;
    else {
        *error = QStringLiteral("\"ttl\" must be always, optional or never, not \"%1\"").arg(ttl);
        return false;
    }
    if (!f.decode.isEmpty() && f.decode != QLatin1String("uuid1")
        && f.decode != QLatin1String("json-owner")) {
        *error = QStringLiteral("\"decode\" must be uuid1 or json-owner, not \"%1\"").arg(f.decode);
        return false;
    }
    if (!f.valueIs.isEmpty() && f.valueIs != QLatin1String("owner-like")
        && f.valueIs != QLatin1String("random-id") && f.valueIs != QLatin1String("no-owner")) {
        *error = QStringLiteral("\"value_is\" must be owner-like, random-id or no-owner, not \"%1\"")
                     .arg(f.valueIs);
        return false;
    }
    f.priority = o.value(QStringLiteral("priority")).toInt(0);

    f.keyAsWritten = o.value(QStringLiteral("key")).toString();
    if (!compile(o, QStringLiteral("key"), &f.key, error)
        || !compile(o, QStringLiteral("value"), &f.value, error)
        || !compile(o, QStringLiteral("field"), &f.field, error)
        || !compile(o, QStringLiteral("ignored_fields"), &f.ignoredFields, error)
        || !compile(o, QStringLiteral("member"), &f.member, error))
        return false;
    QString contains, modeField, writeSuffix, writeMember;
    if (!text(o, QStringLiteral("key_contains"), &contains, error)
        || !text(o, QStringLiteral("mode_field"), &modeField, error)
        || !text(o, QStringLiteral("write_suffix"), &writeSuffix, error)
        || !text(o, QStringLiteral("write_member"), &writeMember, error))
        return false;
    f.keyContains = contains.toUtf8();
    f.modeField = modeField.toUtf8();
    f.writeSuffix = writeSuffix.toUtf8();
    f.writeMember = writeMember.toUtf8();
    f.needsLockName = o.value(QStringLiteral("needs_lock_name")).toBool(false);
    f.dataIdentifies = o.value(QStringLiteral("data_identifies")).toBool(false);
    f.keyIdentifies = o.value(QStringLiteral("key_identifies")).toBool(true);
    f.needsSharedValue = o.value(QStringLiteral("needs_shared_value")).toBool(false);
    f.needsTtl = o.value(QStringLiteral("needs_ttl")).toBool(false);
    f.ownerInValue = o.value(QStringLiteral("owner_in_value")).toBool(false);
    for (const auto &[name, length] :
         {std::pair {"value_length", &f.valueLength}, std::pair {"field_length", &f.fieldLength},
          std::pair {"member_length", &f.memberLength}}) {
        const QJsonValue v = o.value(QLatin1String(name));
        if (v.isUndefined())
            continue;
        const QJsonArray range = v.toArray();
        if (!v.isArray() || range.size() != 2 || !range.at(0).isDouble() || !range.at(1).isDouble()
            || range.at(0).toInt() < 0 || range.at(1).toInt() < range.at(0).toInt()) {
            *error = QStringLiteral("\"%1\" must be [min, max] lengths in bytes").arg(QLatin1String(name));
            return false;
        }
        length->min = range.at(0).toInt();
        length->max = range.at(1).toInt();
    }
    f.valueStarts = o.value(QStringLiteral("value_starts")).toString().toUtf8();
    f.lockKey = FormatTemplate(o.value(QStringLiteral("lock_key")).toString());
    const bool stringShape = f.type == "string";
    if (stringShape && f.value.pattern().isEmpty() && f.valueIs != QLatin1String("random-id")) {
        *error = QStringLiteral("a %1 format needs \"value\", the pattern its values match (or \"value_is\": "
                                "\"random-id\")")
                     .arg(shape);
        return false;
    }
    if ((f.shape == Shape::OwnerHash || f.shape == Shape::HolderHash) && f.field.pattern().isEmpty()) {
        *error = QStringLiteral("a %1 format needs \"field\", the pattern of its holders' fields").arg(shape);
        return false;
    }
    if (f.shape == Shape::HolderZset && f.member.pattern().isEmpty()) {
        *error = QStringLiteral("a holder-zset format needs \"member\", the pattern of its holders");
        return false;
    }
    const QStringList groups = groupNames({&f.key, &f.value, &f.field, &f.member});
    if (!templateOk(f.lockKey, groups, QStringLiteral("lock_key"), error))
        return false;
    if (f.ownerInValue && (f.shape != Shape::OwnerHash || f.value.pattern().isEmpty())) {
        *error = QStringLiteral("\"owner_in_value\" needs an owner-hash format with a \"value\" pattern");
        return false;
    }

    const QJsonObject owner = o.value(QStringLiteral("owner")).toObject();
    if (!onlyKnownFields(owner, {"display", "client", "thread", "meaning"}, QStringLiteral(" in \"owner\""),
                         error))
        return false;
    f.ownerDisplay = FormatTemplate(owner.value(QStringLiteral("display")).toString());
    f.ownerClient = FormatTemplate(owner.value(QStringLiteral("client")).toString());
    f.ownerThread = FormatTemplate(owner.value(QStringLiteral("thread")).toString());
    f.ownerMeaning = owner.value(QStringLiteral("meaning")).toString();
    if (!templateOk(f.ownerDisplay, groups, QStringLiteral("owner.display"), error)
        || !templateOk(f.ownerClient, groups, QStringLiteral("owner.client"), error)
        || !templateOk(f.ownerThread, groups, QStringLiteral("owner.thread"), error))
        return false;

    if (o.contains(QStringLiteral("renewal"))) {
        const QJsonObject r = o.value(QStringLiteral("renewal")).toObject();
        if (!onlyKnownFields(r, {"rule", "value", "text"}, QStringLiteral(" in \"renewal\""), error))
            return false;
        const QString rule = r.value(QStringLiteral("rule")).toString();
        const QHash<QString, RenewalPolicy::Rule> rules {
            {QStringLiteral("none"), RenewalPolicy::Rule::None},
            {QStringLiteral("elapsed-fraction"), RenewalPolicy::Rule::ElapsedFraction},
            {QStringLiteral("remaining-fraction"), RenewalPolicy::Rule::RemainingFraction},
            {QStringLiteral("remaining-ms"), RenewalPolicy::Rule::RemainingMs},
            {QStringLiteral("period-ms"), RenewalPolicy::Rule::Period}};
        if (!rules.contains(rule)) {
            *error = QStringLiteral("renewal \"rule\" \"%1\" is not one of none, elapsed-fraction, "
                                    "remaining-fraction, remaining-ms, period-ms")
                         .arg(rule);
            return false;
        }
        f.renewal.rule = rules.value(rule);
        f.renewal.value = r.value(QStringLiteral("value")).toDouble(0);
        f.renewal.text = r.value(QStringLiteral("text")).toString();
        const bool fraction = f.renewal.rule == RenewalPolicy::Rule::ElapsedFraction
            || f.renewal.rule == RenewalPolicy::Rule::RemainingFraction;
        if (fraction && (f.renewal.value <= 0 || f.renewal.value >= 1)) {
            *error = QStringLiteral("renewal \"value\" must be a fraction between 0 and 1 for %1").arg(rule);
            return false;
        }
        if ((f.renewal.rule == RenewalPolicy::Rule::RemainingMs
             || f.renewal.rule == RenewalPolicy::Rule::Period)
            && f.renewal.value <= 0) {
            *error = QStringLiteral("renewal \"value\" must be a positive number of milliseconds for %1")
                         .arg(rule);
            return false;
        }
    }

    for (const QJsonValue &v : o.value(QStringLiteral("companions")).toArray()) {
        const QJsonObject c = v.toObject();
        if (!onlyKnownFields(c,
                             {"role", "key", "read", "kind_when_present", "name_when_present",
                              "id_when_present", "summary", "time", "lock_ttl"},
                             QStringLiteral(" in a companion"), error))
            return false;
        Companion comp;
        comp.role = c.value(QStringLiteral("role")).toString();
        comp.key = FormatTemplate(c.value(QStringLiteral("key")).toString());
        comp.read = c.value(QStringLiteral("read")).toString().toLatin1();
        comp.nameWhenPresent = c.value(QStringLiteral("name_when_present")).toString();
        comp.idWhenPresent = c.value(QStringLiteral("id_when_present")).toString();
        comp.summary = c.value(QStringLiteral("summary")).toString();
        comp.lockTtl = c.value(QStringLiteral("lock_ttl")).toBool(false);
        if (c.contains(QStringLiteral("time"))) {
            if (!times.contains(c.value(QStringLiteral("time")).toString())) {
                *error = QStringLiteral("companion \"%1\": \"time\" must be expires-ms, expires-s, "
                                        "acquired-ms or acquired-s")
                             .arg(comp.role);
                return false;
            }
            comp.time = times.value(c.value(QStringLiteral("time")).toString());
        }
        if (comp.role.isEmpty() || comp.key.isEmpty()) {
            *error = QStringLiteral("a companion needs a \"role\" and a \"key\"");
            return false;
        }
        if (comp.read != "list" && comp.read != "zset" && comp.read != "string" && comp.read != "exists") {
            *error = QStringLiteral("companion \"%1\": \"read\" must be list, zset, string or exists")
                         .arg(comp.role);
            return false;
        }
        if (c.contains(QStringLiteral("kind_when_present"))
            && !LockKinds::fromName(c.value(QStringLiteral("kind_when_present")).toString(),
                                    &comp.kindWhenPresent)) {
            *error = QStringLiteral("companion \"%1\": \"kind_when_present\" names no kind").arg(comp.role);
            return false;
        }
        if (!templateOk(comp.key, groups, QStringLiteral("companion %1 key").arg(comp.role), error))
            return false;
        f.companions << comp;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("companion_of")).toArray()) {
        const QJsonObject c = v.toObject();
        if (!onlyKnownFields(c, {"contains", "match", "lock", "role"}, QStringLiteral(" in \"companion_of\""),
                             error))
            return false;
        CompanionOf of;
        of.contains = c.value(QStringLiteral("contains")).toString().toUtf8();
        if (!compile(c, QStringLiteral("match"), &of.match, error))
            return false;
        of.lock = FormatTemplate(c.value(QStringLiteral("lock")).toString());
        of.role = c.value(QStringLiteral("role")).toString();
        if (of.contains.isEmpty() || of.match.pattern().isEmpty() || of.lock.isEmpty() || of.role.isEmpty()) {
            *error = QStringLiteral(
                "\"companion_of\" entries need \"contains\", \"match\", \"lock\" and \"role\"");
            return false;
        }
        if (!templateOk(of.lock, groupNames({&of.match}), QStringLiteral("companion_of lock"), error))
            return false;
        f.companionOf << of;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("channels")).toArray()) {
        const FormatTemplate t(v.toString());
        if (!templateOk(t, groups, QStringLiteral("channels"), error))
            return false;
        f.channels << t;
    }
    if (o.contains(QStringLiteral("job"))) {
        const QJsonObject j = o.value(QStringLiteral("job")).toObject();
        if (!onlyKnownFields(j,
                             {"queue", "id", "key", "attempts", "stalled_count", "stalled_set", "reclaim",
                              "confirmed_key"},
                             QStringLiteral(" in \"job\""), error)
            || !compile(j, QStringLiteral("confirmed_key"), &f.job.confirmedKey, error))
            return false;
        f.hasJob = true;
        f.job.queue = FormatTemplate(j.value(QStringLiteral("queue")).toString());
        f.job.id = FormatTemplate(j.value(QStringLiteral("id")).toString());
        f.job.key = FormatTemplate(j.value(QStringLiteral("key")).toString());
        for (const QJsonValue &a : j.value(QStringLiteral("attempts")).toArray())
            f.job.attemptsFields << a.toString().toUtf8();
        f.job.stalledCountField = j.value(QStringLiteral("stalled_count")).toString().toUtf8();
        f.job.stalledSet = FormatTemplate(j.value(QStringLiteral("stalled_set")).toString());
        f.job.reclaim = j.value(QStringLiteral("reclaim")).toString();
        for (const auto &[t, name] :
             {std::pair {&f.job.queue, "job.queue"}, std::pair {&f.job.id, "job.id"},
              std::pair {&f.job.key, "job.key"}, std::pair {&f.job.stalledSet, "job.stalled_set"}}) {
            if (!templateOk(*t, groups, QString::fromLatin1(name), error))
                return false;
        }
    }
    const QString group = o.value(QStringLiteral("group")).toString();
    if (!group.isEmpty() && group != QLatin1String("same-value")) {
        *error = QStringLiteral("\"group\" can only be \"same-value\"");
        return false;
    }
    f.groupBySameValue = group == QLatin1String("same-value");
    for (const QJsonValue &v : o.value(QStringLiteral("also")).toArray())
        f.also << v.toString();
    for (const QJsonValue &v : o.value(QStringLiteral("unless_named")).toArray()) {
        const QByteArray word = v.toString().toUtf8();
        if (!LockNames::isNameWord(word)) {
            *error
                = QStringLiteral("\"unless_named\" takes words (letters only), not \"%1\"").arg(v.toString());
            return false;
        }
        f.unlessNamed << word;
    }
    *out = std::move(f);
    return true;
}
