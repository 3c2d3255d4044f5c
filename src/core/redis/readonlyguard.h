// The read-only guard: on a read-only connection only commands on this explicit allow-list are sent.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

class ReadOnlyGuard
{
public:
    // True when `args` (command name first) only reads. Otherwise `reason` says what was refused.
    static bool allows(const QList<QByteArray> &args, QString *reason = nullptr);
    // True when the command `name` (any case) reads whatever its arguments are (GET, TYPE, but not CLIENT,
    // whose sub-commands differ): a pipeline checks such a name once, not once per command.
    static bool allowsAnyArguments(const QByteArray &name);
    // Every allowed command, with its allowed sub-commands as "CLIENT|GETNAME", for documentation and tests.
    static QStringList allowList();
};
