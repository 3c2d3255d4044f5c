// The catalog of lock algorithms: for each of the ten ids a title, where it comes from, a paragraph for
// learners, the Lua scripts and Redis commands it uses, its known flaw and the fault hooks that make the
// flaw happen — and the factory that makes a lock object for one worker thread. The GUI, the inspector,
// the simulator and `lockscope-cli algorithms` all read it from here.
#pragma once

#include "distributedlock.h"
#include "lockoptions.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

struct LockAlgorithmInfo
{
    QString id; // stable: scenarios and scripts refer to it
    QString title;
    QString origin; // which seed article / library
    QString explanation; // one paragraph for learners
    QString flaw; // its known flaw, in one or two sentences
    QStringList scripts; // Lua scripts it runs (resources/lua/<name>.lua)
    QStringList commands; // Redis commands it sends, for teaching views
    QStringList faults; // FaultHooks members that demonstrate the flaw
    bool checksOwner = false; // release refuses a lock that is not ours
    // The owner check and the delete are one atomic step (a script): a release can never delete a lock that
    // is not ours, whatever the timing. False for the seeds' GET-then-DEL and plain DEL releases.
    bool atomicRelease = false;
    bool reentrant = false;
    bool publishesRelease = false; // waiters can sleep on pub/sub (WaitStrategy::PubSub)
    bool fencing = false;
    bool multiServer = false; // needs N independent servers (Redlock)
    bool renewable = true; // a watchdog can keep it alive
    LockOptions defaults; // how the original behaves

    QJsonObject toJson() const;
};

class LockCatalog
{
public:
    static const QList<LockAlgorithmInfo> &all();
    // One of all(), or the user's own Lua lock (customLuaId()), which find() knows but all() does not list.
    static const LockAlgorithmInfo *find(const QString &id);
    static QString customLuaId() { return QStringLiteral("custom-lua"); }
    static const LockAlgorithmInfo &customLua();
    static QStringList ids();

    // Checks `options` against what the algorithm can do; empty when they fit.
    static QString check(const LockAlgorithmInfo &info, const LockOptions &options);

    // A lock object for one worker thread of `client`. nullptr and `error` when the id is unknown or the
    // options do not fit (e.g. pub/sub waiting for a lock whose release publishes nothing).
    static std::unique_ptr<DistributedLock> create(const QString &id, LockClient &client,
                                                   const QByteArray &name, qint64 threadId,
                                                   const LockOptions &options, QString *error = nullptr);
    // Same, with the algorithm's own defaults.
    static std::unique_ptr<DistributedLock> create(const QString &id, LockClient &client,
                                                   const QByteArray &name, qint64 threadId,
                                                   QString *error = nullptr);
};
