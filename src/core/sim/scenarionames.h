// The words of a scenario's JSON for its enumerations, in the order of the enums they name (scenario.h):
// the parser reads them, the writer writes them, the checks quote them.
#pragma once

#include <QStringList>

namespace ScenarioNames {

inline const QStringList kKinds {QStringLiteral("workload"), QStringLiteral("story")};
inline const QStringList kServerModes {QStringLiteral("sandbox"), QStringLiteral("given")};
inline const QStringList kPubSubChannels {QStringLiteral("auto"), QStringLiteral("sharded"),
                                          QStringLiteral("classic")};
inline const QStringList kStrategies {QStringLiteral("spin"), QStringLiteral("fixed"),
                                      QStringLiteral("jitter"), QStringLiteral("backoff"),
                                      QStringLiteral("pubsub")};
inline const QStringList kClocks {QStringLiteral("monotonic"), QStringLiteral("cached-5ms")};
inline const QStringList kLockChoices {QStringLiteral("random"), QStringLiteral("own")};
inline const QStringList kEngines {QStringLiteral("threads"), QStringLiteral("events")};
inline const QStringList kDistributions {QStringLiteral("fixed"), QStringLiteral("uniform"),
                                         QStringLiteral("exponential")};
inline const QStringList kFaultTypes {QStringLiteral("pause"),
                                      QStringLiteral("crash"),
                                      QStringLiteral("delay"),
                                      QStringLiteral("server-restart"),
                                      QStringLiteral("server-pause"),
                                      QStringLiteral("server-kill"),
                                      QStringLiteral("failover"),
                                      QStringLiteral("clock-skew"),
                                      QStringLiteral("crash-after-setnx"),
                                      QStringLiteral("get-del-delay"),
                                      QStringLiteral("drop-notifications"),
                                      QStringLiteral("partition"),
                                      QStringLiteral("restart"),
                                      QStringLiteral("drop-connections")};
inline const QStringList kWhere {QStringLiteral("before-send"), QStringLiteral("after-receive")};
inline const QStringList kDirections {QStringLiteral("both"), QStringLiteral("to-server"),
                                      QStringLiteral("from-server")};
inline const QStringList kActions {
    QStringLiteral("acquire"),      QStringLiteral("release"),     QStringLiteral("work"),
    QStringLiteral("read"),         QStringLiteral("write"),       QStringLiteral("pause"),
    QStringLiteral("crash"),        QStringLiteral("delay"),       QStringLiteral("server-restart"),
    QStringLiteral("server-pause"), QStringLiteral("server-kill"), QStringLiteral("failover"),
    QStringLiteral("note"),         QStringLiteral("partition"),   QStringLiteral("restart")};

} // namespace ScenarioNames
