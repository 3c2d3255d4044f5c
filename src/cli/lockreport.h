// What `lockscope-cli lock` says besides its steps: the header naming the algorithm, servers and options,
// what an observer sees in Redis after each step, the JSON fields of an acquisition or a release, and the
// JSON document printed at the end with --json.
#pragma once

#include "lockarguments.h"
#include "locks/lockresult.h"

#include <QJsonArray>
#include <QJsonObject>

class QTextStream;
class RedisConnection;

namespace LockReport {

// The four lines before the first step: algorithm, servers, lock and client, options and faults.
void printHeader(QTextStream &out, const LockArguments &args, const QStringList &servers,
                 const QByteArray &clientId);
// "HASH {a:1 = 2} PTTL 29998 ms", "STRING "tok" PTTL 412 ms", "(no key)": what any other client reading
// `key` through `observer` sees.
QString describeKey(RedisConnection &observer, const QByteArray &key);
// "  reply: OK" after a step's own description; empty for Redlock, whose servers' votes are noted instead.
QString replyText(const RedisReply &reply, const QList<ServerVote> &votes);
// One server's vote: "127.0.0.1:7001 granted (OK, 0.412 ms)".
QString voteText(const ServerVote &vote);
QJsonObject acquireFields(const AcquireResult &result);
QJsonObject releaseFields(const ReleaseResult &result);
// The --json document: the run's settings, its steps and its exit code.
QJsonObject document(const LockArguments &args, const QStringList &servers, const QByteArray &clientId,
                     int renewals, const QJsonArray &steps, int exitCode);

} // namespace LockReport
