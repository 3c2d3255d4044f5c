// Which lock format a scanned key fits, with the named groups its patterns captured: what
// FormatCatalog::match() answers, kept with the key so the assembler need not ask again.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

struct LockFormat;

struct FormatMatch
{
    const LockFormat *format = nullptr; // owned by the catalog, which outlives every scan using it
    QHash<QString, QByteArray> groups; // the named groups of the key and data patterns, plus key and value
    bool keyMatched = false; // the format's key pattern matched (it has one)
    QStringList alsoLibraries; // other formats' libraries that fit exactly as well
    // A job-lock format the key fits by name and data, set aside because its job is gone (jobDisowns)
    const LockFormat *disowned = nullptr;
    QHash<QString, QByteArray> disownedGroups;
    explicit operator bool() const { return format != nullptr; }
};
