// Definitions of the logging categories declared in logging.h.
#include "logging.h"

Q_LOGGING_CATEGORY(lcRedis, "lockscope.redis", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSandbox, "lockscope.sandbox", QtWarningMsg)
Q_LOGGING_CATEGORY(lcLocks, "lockscope.locks", QtWarningMsg)
Q_LOGGING_CATEGORY(lcInspect, "lockscope.inspect", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSim, "lockscope.sim", QtWarningMsg)
Q_LOGGING_CATEGORY(lcUi, "lockscope.ui", QtWarningMsg)
Q_LOGGING_CATEGORY(lcProfiles, "lockscope.profiles", QtWarningMsg)
