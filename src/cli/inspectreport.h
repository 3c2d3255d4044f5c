// How `lockscope-cli inspect` shows what it found: a table for people, one JSON object for scripts, one JSON
// line per lock to start a --watch --json stream, and the exit code scripts read. Writes only to the stream
// it is given, so tests can read what a user would.
#pragma once

#include "inspectscan.h"

#include <QJsonObject>

class QTextStream;

namespace InspectReport {

// The server line, the table of locks, their diagnoses, what could not be read, and the totals.
void printTable(QTextStream &out, const InspectFindings &found);
// The whole inspection as one JSON object (cluster: with its "nodes").
QJsonObject json(const InspectFindings &found);
// One compact JSON object per lock, each with "event": "found", one a line.
void printFoundLines(QTextStream &out, const InspectFindings &found);
// 3 when a lock has a diagnosis in `failOn` ("any": every diagnosis), else 4 when the inspection is
// incomplete, else 0: a diagnosis asked for is reported whatever else was missed, and an incomplete look is
// never "ok".
int exitCode(const InspectFindings &found, const QStringList &failOn);

} // namespace InspectReport
