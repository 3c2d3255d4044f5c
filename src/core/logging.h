// Logging categories per area, so users can turn on e.g. QT_LOGGING_RULES="lockscope.redis.debug=true".
#pragma once

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcRedis)
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)
Q_DECLARE_LOGGING_CATEGORY(lcLocks)
Q_DECLARE_LOGGING_CATEGORY(lcInspect)
Q_DECLARE_LOGGING_CATEGORY(lcSim)
Q_DECLARE_LOGGING_CATEGORY(lcUi)
Q_DECLARE_LOGGING_CATEGORY(lcProfiles)
