// What can be done with one lock from its row's menu and from the window's Inspector menu: copy its key, its
// owner or its unlock command, and — on a connection that allows writes — force unlock, set TTL, or remove a
// fair lock's orphaned queue. Each says why when it cannot run.
#pragma once

#include "inspect/lockactions.h"
#include "inspect/lockrecord.h"

#include <QList>

#include <functional>

class QAction;
class QObject;

namespace LockRowActions {

// `connected`: a server is connected; `canWrite`: and the connection allows writes. `act` asks for an action
// on the lock (it opens the confirmation dialog). The actions belong to `parent`; the caller deletes them.
QList<QAction *> build(QObject *parent, const LockRecord &record, bool connected, bool canWrite,
                       const std::function<void(LockAction::Type)> &act);

} // namespace LockRowActions
