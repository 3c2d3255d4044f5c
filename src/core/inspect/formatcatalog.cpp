// FormatCatalog: files are read whole and checked strictly; a format's line is found again in the text by its
// id, so an error names the line a user has to fix.
#include "formatcatalog.h"

#include "lockclassifier.h"
#include "locknames.h"
#include "ownerevidence.h"

#include <limits>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {
// A holder's id in a semaphore: a random id, or a process named host:pid (the member pattern has placed it).
bool isHolderId(const QByteArray &id)
{
    const qsizetype colon = id.lastIndexOf(':');
    return OwnerEvidence::isRandomId(id)
        || (colon > 0 && LockNames::isDigits(id.mid(colon + 1)) && OwnerEvidence::isOwnerLike(id));
}

int lineAt(const QByteArray &text, qsizetype offset)
{
    return int(std::count(text.cbegin(), text.cbegin() + std::clamp<qsizetype>(offset, 0, text.size()), '\n'))
        + 1;
}

// The line of `"id": "<id>"` (the n-th such id, for duplicates).
int lineOfFormat(const QByteArray &text, const QString &id, int nth)
{
    const QRegularExpression re(QStringLiteral("\"id\"\\s*:\\s*\"%1\"").arg(QRegularExpression::escape(id)));
    QRegularExpressionMatchIterator it = re.globalMatch(QString::fromUtf8(text));
    int seen = 0;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (seen++ == nth)
            return lineAt(QString::fromUtf8(text).left(m.capturedStart()).toUtf8(), qsizetype(1) << 40);
    }
    return 1;
}

int typeIndex(const QByteArray &type)
{
    return type == "string" ? 0 : type == "hash" ? 1 : type == "zset" ? 2 : -1;
}

int score(const LockFormat &f, bool keyMatched)
{
    return (keyMatched ? 1000 : 0) + f.priority * 10 + (f.dataIdentifies ? 5 : 0) + (f.needsLockName ? 0 : 1);
}

void addNamedGroups(const QRegularExpression &re, const QRegularExpressionMatch &m,
                    QHash<QString, QByteArray> *groups)
{
    for (const QString &name : re.namedCaptureGroups()) {
        if (!name.isEmpty() && m.hasCaptured(name))
            groups->insert(name, m.captured(name).toUtf8());
    }
}

QString builtInFolder()
{
    return QStringLiteral(":/formats");
}

} // namespace

QString FormatCatalog::userFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(QStringLiteral("LockScope/formats"));
}

namespace {

QMutex standardMutex;
std::shared_ptr<const FormatCatalog> standardCatalog;

} // namespace

std::shared_ptr<const FormatCatalog> FormatCatalog::standard()
{
    QMutexLocker lock(&standardMutex);
    if (!standardCatalog)
        standardCatalog = loadStandard();
    return standardCatalog;
}

std::shared_ptr<const FormatCatalog> FormatCatalog::reloadStandard()
{
    auto fresh = loadStandard();
    QMutexLocker lock(&standardMutex);
    standardCatalog = fresh;
    return fresh;
}

std::shared_ptr<const FormatCatalog> FormatCatalog::loadStandard()
{
    auto c = std::make_shared<FormatCatalog>();
    QStringList errors;
    const QDir builtIn(builtInFolder());
    for (const QString &name : builtIn.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile f(builtIn.filePath(name));
        if (f.open(QIODevice::ReadOnly))
            c->addFile(QStringLiteral("resources/formats/") + name, f.readAll(), &errors);
    }
    const QDir user(userFolder());
    for (const QString &name : user.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile f(user.filePath(name));
        if (!f.open(QIODevice::ReadOnly)) {
            c->m_errors << QStringLiteral("%1: %2").arg(f.fileName(), f.errorString());
            continue;
        }
        c->addFile(f.fileName(), f.readAll(), &errors);
    }
    c->index();
    return c;
}

std::shared_ptr<const FormatCatalog> FormatCatalog::withFiles(const QStringList &files, QStringList *errors)
{
    return addingFiles(std::make_shared<FormatCatalog>(*standard()), files, errors);
}

std::shared_ptr<const FormatCatalog> FormatCatalog::fromFiles(const QStringList &files, QStringList *errors)
{
    return addingFiles(std::make_shared<FormatCatalog>(), files, errors);
}

std::shared_ptr<const FormatCatalog> FormatCatalog::addingFiles(std::shared_ptr<FormatCatalog> c,
                                                                const QStringList &files, QStringList *errors)
{
    bool ok = true;
    for (const QString &path : files) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            *errors << QStringLiteral("%1: %2").arg(path, f.errorString());
            ok = false;
            continue;
        }
        ok &= c->addFile(path, f.readAll(), errors);
    }
    c->index();
    return ok ? c : nullptr;
}

bool FormatCatalog::addFile(const QString &fileName, const QByteArray &text, QStringList *errors)
{
    const auto fail = [&](int line, const QString &message) {
        const QString e = QStringLiteral("%1:%2: %3").arg(fileName).arg(line).arg(message);
        m_errors << e;
        if (errors)
            *errors << e;
        return false;
    };
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(lineAt(text, parseError.offset),
                    QStringLiteral("not valid JSON: %1").arg(parseError.errorString()));
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value(QStringLiteral("lockscope_formats")).toInt() != 1)
        return fail(1,
                    QStringLiteral(
                        "not a LockScope format file: it must be an object with \"lockscope_formats\": 1"));
    for (const QString &k : root.keys()) {
        static const QStringList known {"lockscope_formats", "library", "checked", "formats", "about"};
        if (!known.contains(k))
            return fail(1,
                        QStringLiteral("unknown top-level field \"%1\" (known: %2)")
                            .arg(k, known.join(QStringLiteral(", "))));
    }
    QStringList checked;
    for (const QJsonValue &v : root.value(QStringLiteral("checked")).toArray())
        checked << v.toString();
    const QJsonArray list = root.value(QStringLiteral("formats")).toArray();
    if (list.isEmpty())
        return fail(1, QStringLiteral("\"formats\" must be a non-empty list"));
    QList<LockFormat> read;
    QHash<QString, int> seen;
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        const QString id = o.value(QStringLiteral("id")).toString();
        const int line = lineOfFormat(text, id, seen.value(id));
        seen[id] += 1;
        LockFormat f;
        QString error;
        if (!v.isObject()
            || !LockFormat::fromJson(o, root.value(QStringLiteral("library")).toString(), checked, &f,
                                     &error))
            return fail(line,
                        QStringLiteral("format \"%1\": %2")
                            .arg(id, v.isObject() ? error : QStringLiteral("not an object")));
        if (seen.value(id) > 1)
            return fail(line, QStringLiteral("format \"%1\" is defined twice in this file").arg(id));
        f.file = fileName;
        f.line = line;
        read << f;
    }
    // A file's format with the id of one already known replaces it: users can correct a built-in format.
    for (LockFormat &f : read) {
        const auto it = std::find_if(m_formats.begin(), m_formats.end(),
                                     [&](const LockFormat &g) { return g.id == f.id; });
        if (it != m_formats.end())
            *it = std::move(f);
        else
            m_formats << std::move(f);
    }
    m_files << fileName;
    return true;
}

void FormatCatalog::index()
{
    for (auto &list : m_byType)
        list.clear();
    m_companionRules.clear();
    for (const LockFormat &f : std::as_const(m_formats)) {
        for (const LockFormat::CompanionOf &rule : f.companionOf)
            m_companionRules.append({&f, &rule});
    }
    for (int i = 0; i < m_formats.size(); ++i) {
        const int t = typeIndex(m_formats.at(i).type);
        if (t >= 0)
            m_byType[t] << i;
    }
    // Formats that know the key's name first, then by priority: match() can stop early once nothing left
    // could beat what it has.
    for (auto &list : m_byType) {
        std::stable_sort(list.begin(), list.end(), [this](int a, int b) {
            const LockFormat &x = m_formats.at(a), &y = m_formats.at(b);
            return score(x, !x.key.pattern().isEmpty()) > score(y, !y.key.pattern().isEmpty());
        });
    }
}

const LockFormat *FormatCatalog::find(const QString &id) const
{
    for (const LockFormat &f : m_formats) {
        if (f.id == id)
            return &f;
    }
    return nullptr;
}

bool FormatCatalog::dataFits(const LockFormat &f, const ScannedKey &k, const QString &valueText,
                             QHash<QString, QByteArray> *groups) const
{
    switch (f.shape) {
    case LockFormat::Shape::Token:
    case LockFormat::Shape::Flag:
    case LockFormat::Shape::Counter: {
        // Only a value read whole can fit a pattern; the cheap checks first.
        if (k.valueLength > k.value.size() || k.value.isEmpty() || !f.valueLength.contains(k.value.size())
            || (!f.valueStarts.isEmpty() && !k.value.startsWith(f.valueStarts)))
            return false;
        // A random id is judged on the bytes (raw random bytes are no text), before any pattern.
        if (f.valueIs == QLatin1String("random-id")) {
            if (!OwnerEvidence::isRandomId(k.value))
                return false;
            if (f.value.pattern().isEmpty())
                return true;
        }
        if (valueText.isNull())
            return false;
        const QRegularExpressionMatch m = f.value.match(valueText);
        if (!m.hasMatch())
            return false;
        // A uuid1 token must also decode to a plausible time: random hex passes the pattern 1 time in 64.
        if (f.decode == QLatin1String("uuid1") && !LockClassifier::parseUuid1Hex(k.value))
            return false;
        // A lock word in the name is no evidence of a holder; an owner-like value is.
        if (f.valueIs == QLatin1String("owner-like") && !OwnerEvidence::isOwnerLike(k.value))
            return false;
        addNamedGroups(f.value, m, groups);
        return true;
    }
    case LockFormat::Shape::OwnerHash: {
        qsizetype owners = 0, unexpected = 0, remaining = k.fields.size();
        bool mode = false, lockMode = false, writer = false;
        for (const auto &[field, value] : k.fields) {
            --remaining;
            if (!f.modeField.isEmpty() && field == f.modeField) {
                mode = true;
                lockMode = value == "read" || value == "write"; // the only modes the library writes
                continue;
            }
            QByteArray name = field;
            if (!f.writeSuffix.isEmpty() && name.endsWith(f.writeSuffix))
                name.chop(f.writeSuffix.size());
            const QRegularExpressionMatch m = f.fieldLength.contains(name.size())
                ? f.field.match(QString::fromUtf8(name))
                : QRegularExpressionMatch();
            if (m.hasMatch() && f.ownerInValue) {
                // The field only names an entry; the owner is its value.
                const QRegularExpressionMatch v = f.value.match(QString::fromUtf8(value));
                if (!v.hasMatch()) {
                    ++unexpected;
                    continue;
                }
                if (owners++ == 0)
                    addNamedGroups(f.value, v, groups);
            } else if (m.hasMatch()) {
                if (owners++ == 0)
                    addNamedGroups(f.field, m, groups);
                writer |= name.size() != field.size();
            } else if (f.ignoredFields.pattern().isEmpty()
                       || !f.ignoredFields.match(QString::fromUtf8(field)).hasMatch()) {
                ++unexpected;
            }
            // Most hashes of a keyspace are not locks: stop as soon as the fields left cannot make it one.
            if (unexpected > owners + remaining)
                return false;
        }
        // A read-write format needs its mode field or a writer: a plain owner hash is the other format's.
        if (!f.modeField.isEmpty() && !mode && !writer)
            return false;
        // No owner at all: only a mode the library itself writes says this was one of its locks (left
        // behind, which the classifier reports). A settings hash with {mode: strict} is no lock.
        if (owners == 0)
            return lockMode && unexpected == 0;
        return unexpected <= owners; // a few stray fields make a malformed lock, many make no lock
    }
    case LockFormat::Shape::HolderHash: {
        if (k.fields.isEmpty())
            return false;
        for (const auto &[field, value] : k.fields) {
            if (!f.fieldLength.contains(field.size()))
                return false;
            const QRegularExpressionMatch m = f.field.match(QString::fromUtf8(field));
            if (!m.hasMatch())
                return false;
            if (field == k.fields.first().first)
                addNamedGroups(f.field, m, groups);
        }
        return true;
    }
    case LockFormat::Shape::HolderZset: {
        if (k.members.isEmpty())
            return false;
        bool any = false;
        // Owner-like holders: each member's id is a random id or a process (host:pid), and its score a time
        // already past (a leaderboard's points or a schedule's future times are no holders).
        const bool ownerLike = f.valueIs == QLatin1String("owner-like");
        constexpr double kYear2000Ms = 946684800000.0;
        const double nowMs = ownerLike ? double(QDateTime::currentMSecsSinceEpoch()) : 0;
        // A holder took its permit in the past; 10 s covers clocks that disagree. More than that ahead is a
        // deadline (a lease set with 30 s leases in ms looked like a semaphore with a minute's grace).
        const double latestMs = nowMs + 10000;
        // A lease set's scores are deadlines near now (issue 41): a day either side, at least one still
        // ahead. A rate limiter's window holds past times only, a leaderboard small numbers, a results
        // registry deadlines a year away; none of them fits.
        const bool deadlines
            = f.time == LockFormat::Time::ExpiresS || f.time == LockFormat::Time::ExpiresMs;
        const double unitMs = f.time == LockFormat::Time::ExpiresS ? 1000.0 : 1.0;
        constexpr double kDayMs = 24.0 * 3600 * 1000;
        bool ahead = false;
        for (const auto &[member, score] : k.members) {
            if (!f.writeMember.isEmpty() && member == f.writeMember)
                continue;
            if (!f.memberLength.contains(member.size()))
                return false;
            const QRegularExpressionMatch m = f.member.match(QString::fromUtf8(member));
            if (!m.hasMatch())
                return false;
            if (ownerLike
                && (!isHolderId(m.captured(QStringLiteral("id")).toUtf8())
                    || (f.time == LockFormat::Time::AcquiredMs && (score < kYear2000Ms || score > latestMs))
                    || (deadlines && !(std::abs(score * unitMs - nowMs) <= kDayMs))))
                return false;
            ahead |= score * unitMs > nowMs;
            if (!any)
                addNamedGroups(f.member, m, groups);
            any = true;
        }
        if (ownerLike && deadlines && !ahead)
            return false;
        return any || !f.writeMember.isEmpty();
    }
    }
    return false;
}

namespace {

bool stringShape(const LockFormat &f)
{
    return f.shape == LockFormat::Shape::Token || f.shape == LockFormat::Shape::Flag
        || f.shape == LockFormat::Shape::Counter;
}

// Hashes and sorted sets: at least one field or member must have a holder's length (checked before the key's
// pattern, like a string's length; dataFits decides the rest).
bool anyHolderFits(const LockFormat &f, const ScannedKey &k)
{
    switch (f.shape) {
    case LockFormat::Shape::OwnerHash:
    case LockFormat::Shape::HolderHash:
        if (f.fieldLength.min == 0 && f.fieldLength.max == std::numeric_limits<int>::max())
            return true;
        for (const auto &[field, value] : k.fields) {
            qsizetype n = field.size();
            if (!f.writeSuffix.isEmpty() && field.endsWith(f.writeSuffix))
                n -= f.writeSuffix.size();
            if (f.fieldLength.contains(n) || (!f.modeField.isEmpty() && field == f.modeField))
                return true;
        }
        return false;
    case LockFormat::Shape::HolderZset:
        if (f.memberLength.min == 0 && f.memberLength.max == std::numeric_limits<int>::max())
            return true;
        for (const auto &[member, score] : k.members) {
            if (f.memberLength.contains(member.size()) || (!f.writeMember.isEmpty() && member == f.writeMember))
                return true;
        }
        return false;
    default:
        return true;
    }
}

} // namespace

bool FormatCatalog::jobDisowns(const LockFormat &f, const ScannedKey &k)
{
    if (!f.hasJob || f.job.key.isEmpty() || f.dataIdentifies || !k.job.read || !k.job.error.isEmpty()
        || k.job.exists || k.job.markedStalled)
        return false;
    return f.job.confirmedKey.pattern().isEmpty()
        || !f.job.confirmedKey.match(QString::fromUtf8(k.key)).hasMatch();
}

FormatCatalog::Match FormatCatalog::match(const ScannedKey &k) const
{
    Match best;
    const int t = typeIndex(k.type);
    if (t < 0)
        return best;
    int bestScore = -1;
    // Converted once, and only when a format gets that far (most keys fail the cheap checks first).
    QString keyText;
    QString valueText;
    bool valueConverted = false;
    for (int i : m_byType[t]) {
        const LockFormat &f = m_formats.at(i);
        const bool hasKey = !f.key.pattern().isEmpty();
        const int s = score(f, hasKey);
        // Sorted: nothing further can tie or beat it (scores go below zero with a negative priority).
        if (best.format && s < bestScore)
            break;
        // A TTL that could not be read (-3: refused by an ACL) may be there: a format whose value names a
        // holder is tried, and the record shows the TTL as unknown, with why. A word or a flag is a lock only
        // by its TTL, so a no-owner format needs it read.
        const bool ttlRuledOut
            = k.pttlMs == -1 || k.pttlMs == -2 || (k.pttlMs < 0 && f.valueIs == QLatin1String("no-owner"));
        if ((f.needsLockName && !k.lockNamed) || (f.needsTtl && ttlRuledOut)
            || (f.needsSharedValue && k.sameValueKeys.isEmpty()))
            continue;
        // A string value must have the format's length and start before its key's pattern is worth trying
        // (dataFits checks the same; here it saves the key pattern on most keys of a keyspace).
        if (stringShape(f)
            && (k.value.isEmpty() || k.valueLength > k.value.size() || !f.valueLength.contains(k.value.size())
                || (!f.valueStarts.isEmpty() && !k.value.startsWith(f.valueStarts))))
            continue;
        if (!anyHolderFits(f, k))
            continue;
        QHash<QString, QByteArray> groups;
        if (hasKey) {
            if (!f.keyContains.isEmpty()
                && !::memmem(k.key.constData(), size_t(k.key.size()), f.keyContains.constData(),
                             size_t(f.keyContains.size())))
                continue;
            if (keyText.isNull())
                keyText = QString::fromUtf8(k.key);
            const QRegularExpressionMatch m = f.key.match(keyText);
            if (!m.hasMatch())
                continue;
            addNamedGroups(f.key, m, &groups);
        }
        if (!valueConverted && k.type == "string" && f.valueLength.contains(k.value.size())) {
            valueConverted = true;
            const QString text = QString::fromUtf8(k.value);
            if (text.toUtf8() == k.value) // bytes that are not UTF-8 fit no pattern
                valueText = text.isNull() ? QString(QLatin1String("")) : text;
        }
        if (!dataFits(f, k, valueText, &groups))
            continue;
        // Last, on the few keys whose data fits: a name part that says what else the key is.
        if (std::any_of(f.unlessNamed.cbegin(), f.unlessNamed.cend(),
                        [&](const QByteArray &word) { return LockNames::hasNamePart(k.key, word); }))
            continue;
        if (jobDisowns(f, k)) {
            if (!best.disowned) {
                best.disowned = &f;
                best.disownedGroups = groups;
            }
            continue;
        }
        if (best.format && s == bestScore) {
            if (!best.alsoLibraries.contains(f.library) && f.library != best.format->library)
                best.alsoLibraries << f.library;
            continue;
        }
        groups.insert(QStringLiteral("key"), k.key);
        groups.insert(QStringLiteral("value"), k.value);
        best.format = &f;
        best.groups = std::move(groups);
        best.keyMatched = hasKey;
        bestScore = s;
    }
    return best;
}

FormatCatalog::CompanionOf FormatCatalog::companionOf(const QByteArray &key) const
{
    for (const auto &[f, rule] : m_companionRules) {
        if (!::memmem(key.constData(), size_t(key.size()), rule->contains.constData(), size_t(rule->contains.size())))
            continue;
        const QRegularExpressionMatch m = rule->match.match(QString::fromUtf8(key));
        if (!m.hasMatch())
            continue;
        QHash<QString, QByteArray> groups;
        addNamedGroups(rule->match, m, &groups);
        groups.insert(QStringLiteral("key"), key);
        return {f, rule->lock.expand(groups), rule->role};
    }
    return {};
}
