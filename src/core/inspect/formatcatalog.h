// The lock formats the inspector knows: the built-in ones (resources/formats/*.json, one file per library
// family), the user's own (*.json in ~/.config/LockScope/formats/) and any file given with --formats.
// Immutable once loaded, so one catalog is shared by every scanning thread. Matching a scanned key finds the
// format that fits it best: a format that knows the key's name and its data beats one that knows only its
// data; among equals, the higher priority wins and the others are named as "also possible".
#pragma once

#include "formatmatch.h"
#include "lockformat.h"
#include "scannedkey.h"

#include <QList>
#include <QStringList>

#include <memory>

class FormatCatalog
{
public:
    using Match = FormatMatch;

    struct CompanionOf
    {
        const LockFormat *format = nullptr;
        QByteArray lockKey;
        QString role;
        explicit operator bool() const { return format != nullptr; }
    };

    // The built-in formats plus the user's folder; loaded once per process. Problems in the user's files are
    // in errors() and the good files still load.
    static std::shared_ptr<const FormatCatalog> standard();
    // Reads the built-in formats and the user's folder again (after the user edited a file): scans started
    // from then on use the new catalog; running ones keep theirs.
    static std::shared_ptr<const FormatCatalog> reloadStandard();
    // The built-in formats and the given files (--formats): false with `errors` set when any file is bad.
    static std::shared_ptr<const FormatCatalog> withFiles(const QStringList &files, QStringList *errors);
    // A catalog of exactly these files' formats (tests, the fuzzer).
    static std::shared_ptr<const FormatCatalog> fromFiles(const QStringList &files, QStringList *errors);
    // Where the user's own formats are read from.
    static QString userFolder();

    // Adds every format of a file's text. False with `errors` appended ("file:line: …") when anything in it
    // is wrong; then none of its formats are added.
    bool addFile(const QString &fileName, const QByteArray &text, QStringList *errors);

    const QList<LockFormat> &formats() const { return m_formats; }
    const LockFormat *find(const QString &id) const;
    // Files read and problems met while loading (for the GUI's list and the CLI's warnings).
    const QStringList &files() const { return m_files; }
    const QStringList &errors() const { return m_errors; }

    // The format `key` fits best, or an empty match.
    Match match(const ScannedKey &key) const;
    // A job lock's name (<prefix>:<queue>:<job>:lock) is also what many hand-written locks are called; its
    // job is what confirms it. True when the format names a job hash, `key`'s job was read and is gone (and
    // not marked stalled), the data does not identify the library either, and the key is not under the
    // library's own prefix (job.confirmed_key): then `f` does not fit `key`, and match() looks further.
    static bool jobDisowns(const LockFormat &f, const ScannedKey &key);
    // Whether `key` (a name found by the scan) is a companion of some format's lock, and of which lock.
    CompanionOf companionOf(const QByteArray &key) const;

private:
    static std::shared_ptr<const FormatCatalog> loadStandard();
    // `files` added to `catalog`, then indexed; nullptr when one could not be read or has errors.
    static std::shared_ptr<const FormatCatalog> addingFiles(std::shared_ptr<FormatCatalog> catalog,
                                                            const QStringList &files, QStringList *errors);
    void index();
    // `valueText`: the string value as text, null when it is no string or not UTF-8.
    bool dataFits(const LockFormat &f, const ScannedKey &k, const QString &valueText,
                  QHash<QString, QByteArray> *groups) const;

    QList<LockFormat> m_formats;
    QList<int> m_byType[3]; // string, hash, zset: indexes into m_formats, best first
    QList<QPair<const LockFormat *, const LockFormat::CompanionOf *>> m_companionRules; // every format's, flat
    QStringList m_files;
    QStringList m_errors;
};
