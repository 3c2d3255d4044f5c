// One lock format of the catalog, as read from a resources/formats/*.json file (or the user's own): which
// keys it covers, what their data looks like, who the owner is, what kind of lock it is, what else belongs
// to it, and how its library renews it. Data, not code: the classifier interprets it (see FormatCatalog and
// docs/formats.md for the file format).
#pragma once

#include "lockkind.h"
#include "lockrecord.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <limits>

// A text with ${name} placeholders filled from the key's and data's named groups: ${key} is the whole key,
// ${key|braced} wraps it in {…} unless it already holds a brace (Redisson's companion names), ${x|hex} shows
// raw bytes as hex, ${x|8} keeps the first 8 characters of x and marks the cut with "…". ${holder} is the
// holder's own field, member or value.
class FormatTemplate
{
public:
    FormatTemplate() = default;
    explicit FormatTemplate(const QString &text);

    bool isEmpty() const { return m_text.isEmpty(); }
    const QString &text() const { return m_text; }
    // The placeholders it uses, to check them against the groups the format's patterns define.
    QStringList names() const;
    QByteArray expand(const QHash<QString, QByteArray> &values) const;

private:
    QString m_text;
};

struct LockFormat
{
    // How the data is read into holders.
    enum class Shape {
        Token, // a string holding the owner's token
        Flag, // a string holding a fixed marker ("b:1;", "LOCK"): locked, nobody named
        Counter, // a string holding a number of free permits or a latch's count: no holder recorded
        OwnerHash, // a hash whose fields are owners (→ hold count), optionally with a mode field
        HolderHash, // a hash whose fields are holders → when they took it (sidekiq's LOCKED)
        HolderZset, // a zset whose members are holders → an expiry or an acquisition time
    };
    // What a zset score or hash value says about a holder.
    enum class Time { None, ExpiresMs, ExpiresS, AcquiredMs, AcquiredS };
    // What the library does about a TTL.
    enum class Ttl {
        Always, // it always sets one: no TTL means something is wrong
        Optional, // a TTL is an option of the caller (no TTL: stuck for ever if the holder dies)
        Never, // it never sets one on this key
    };

    struct Companion
    {
        QString role; // "queue", "deadlines", "token", "weights", "job", "resource", …
        FormatTemplate key;
        QByteArray read; // how to read it: "list", "zset", "string", "exists"
        // When it is there (and not empty), the lock is of another kind or format: a Redisson lock with a
        // queue is a fair lock, with a token counter a fenced lock.
        LockKind kindWhenPresent = LockKind::None;
        QString nameWhenPresent;
        QString idWhenPresent;
        QString summary; // "${count} waiters queued"
        Time time = Time::None; // a zset companion whose scores are its holders' expiries or start times
        bool lockTtl = false; // its TTL is the lock's when the lock's own key has none
    };

    // A key that belongs to a lock of this format without being one (found by the scan): attached to the
    // lock instead of listed.
    struct CompanionOf
    {
        QByteArray contains; // a literal the key must hold (checked before the pattern, for speed)
        QRegularExpression match;
        FormatTemplate lock;
        QString role;
    };

    struct Job
    {
        FormatTemplate queue;
        FormatTemplate id;
        FormatTemplate key; // the job's hash
        QList<QByteArray> attemptsFields; // the first one present counts
        QByteArray stalledCountField;
        FormatTemplate stalledSet; // a set of job ids the queue's stalled check looks at
        QString reclaim; // what the queue does when the lock lapses
        // Keys that are the library's even when their job is gone (its default prefix): elsewhere a lock
        // whose job hash is gone and whose data does not identify the library is not taken for its job lock.
        QRegularExpression confirmedKey;
    };

    // Where it was read from, for error messages and the GUI's list.
    QString file;
    int line = 0;

    QString id;
    QString name; // "BullMQ job lock"
    QString library; // "BullMQ"
    QStringList checked; // "bullmq 5.66.4 (npm, run)": the versions the format was checked against
    LockKind kind = LockKind::Mutex;
    QByteArray type; // "string", "hash", "zset"
    Shape shape = Shape::Token;
    int priority = 0; // higher wins when several formats fit equally well

    // The key: a pattern (its named groups fill the templates) and, for speed, a literal it must contain.
    QRegularExpression key;
    QString keyAsWritten; // `key` as the format file gives it, for people (the compiled one is anchored)
    QByteArray keyContains;
    bool needsLockName = false; // only for keys named like a lock (generic formats)
    bool needsTtl = false; // only for keys with a TTL (a short value is a lock's only with one)
    bool dataIdentifies = false; // the data alone names the library (Redisson's <uuid>:<thread> fields)
    // A key that fits `key` names the library. False for a name any code may choose (mutex:<name>,
    // semaphore:<name>, lock:<name>): the key then says lock, but the library stays probable.
    bool keyIdentifies = true;
    // The data.
    // Cheap checks made before any pattern (a full scan tries every string value against the formats that do
    // not know the key's name): lengths in bytes, and a literal the value starts with.
    struct Length
    {
        int min = 0;
        int max = std::numeric_limits<int>::max();
        bool contains(qsizetype n) const { return n >= min && n <= max; }
    };
    Length valueLength, fieldLength, memberLength;
    QByteArray valueStarts;
    QRegularExpression value; // Token, Flag, Counter: the whole value
    QRegularExpression field; // OwnerHash, HolderHash: each holder field
    QRegularExpression ignoredFields; // OwnerHash: fields that are neither owners nor the mode
    QByteArray modeField; // OwnerHash: "mode" for read-write locks
    bool ownerInValue
        = false; // OwnerHash: the owner is the field's value (matched by `value`), not the field
    QByteArray writeSuffix; // OwnerHash: ":write" marks the writer
    QRegularExpression member; // HolderZset: each holder
    QByteArray writeMember; // HolderZset: "__write__" marks an exclusive hold
    Time time = Time::None; // HolderZset scores, HolderHash values
    QString decode; // a built-in decoder of the token: "uuid1" (redis-py's time and host), "json-owner"
    // What the value must say about a holder (OwnerEvidence): "owner-like" (a random token of any common
    // alphabet, a uuid, letters mixed with digits), "random-id" (a uuid, a random token of any common
    // alphabet or raw random bytes: what a holder draws, checked in place of a `value` pattern, since raw
    // bytes are no text), "no-owner" (a word or a flag: listed under a lock name, never alarmed on, since
    // nothing in it names a holder), or empty (the pattern alone decides).
    QString valueIs;

    // The owner as the library means it.
    FormatTemplate ownerDisplay; // "worker ${worker|8}, lock #${seq}"
    FormatTemplate ownerClient;
    FormatTemplate ownerThread;
    QString ownerMeaning; // one sentence: "a random 16-character token (Str::random)"

    Ttl ttl = Ttl::Optional;
    RenewalPolicy renewal;
    QList<Companion> companions;
    QList<CompanionOf> companionOf;
    QList<FormatTemplate> channels; // pub/sub channels whose subscribers wait for it
    bool hasJob = false;
    Job job;
    bool groupBySameValue = false; // keys holding the same value are one multi-resource lock
    // Only for a key whose value other keys hold too (LockAssembler found them): a random token shared by
    // several keys with one TTL is one holder's lock on several resources, whatever the names say.
    bool needsSharedValue = false;
    // The lock's own key when the scanned key is only part of it (Redisson's {N}:timeout zset of the
    // semaphore N): the record is listed under this key, with the scanned one as a companion.
    FormatTemplate lockKey;
    QStringList also; // other libraries that write exactly this shape
    // Words that name another use of the same shape (session, nonce, cache): a key with one as a name part
    // is not this format's (LockNames::hasNamePart).
    QList<QByteArray> unlessNamed;
    QString note; // shown with the lock: what a stuck one means, how to clear it
    // When the note fits the reading: "no-ttl" (a note on what a missing TTL means is shown only on a key
    // without one), "ttl" (only on a key with one), or empty (always: a fact that no reading contradicts).
    QString noteWhen;

    // Reads `o` (one entry of a file's "formats" list). False with `error` set to a sentence naming the
    // field; `library` and `checked` come from the file when the entry does not set them.
    static bool fromJson(const QJsonObject &o, const QString &library, const QStringList &checked,
                         LockFormat *out, QString *error);
    // For docs and the GUI: the shape as the file spells it.
    static QString shapeName(Shape shape);
};
