// LockRowActions: QActions built for one record, enabled as LockActions says they can run on it.
#include "lockrowactions.h"

#include "redis/bytes.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>

namespace LockRowActions {

QList<QAction *> build(QObject *parent, const LockRecord &record, bool connected, bool canWrite,
                       const std::function<void(LockAction::Type)> &act)
{
    QList<QAction *> actions;
    const auto add = [&](const QString &name, const QString &text, auto slot) {
        auto *a = new QAction(text, parent);
        a->setObjectName(name);
        QObject::connect(a, &QAction::triggered, parent, slot);
        actions << a;
        return a;
    };
    // Exact bytes where they are text; a key that is not UTF-8 is copied as redis-cli would quote it.
    const QByteArray key = record.key;
    add(QStringLiteral("copyKey"), QObject::tr("Copy Key"), [key] {
        QApplication::clipboard()->setText(Bytes::isPrintableUtf8(key) ? QString::fromUtf8(key)
                                                                       : LockActions::quote(key));
    });
    QAction *owner = add(QStringLiteral("copyOwner"), QObject::tr("Copy Owner"), [record] {
        QStringList ids;
        for (const LockOwner &o : record.owners)
            ids << (Bytes::isPrintableUtf8(o.id) ? QString::fromUtf8(o.id) : LockActions::quote(o.id));
        QApplication::clipboard()->setText(ids.join(u'\n'));
    });
    owner->setEnabled(!record.owners.isEmpty());
    const LockAction unlock = LockActions::forceUnlock(record);
    QAction *command = add(QStringLiteral("copyUnlockCommand"), QObject::tr("Copy Unlock Command"),
                           [unlock] { QApplication::clipboard()->setText(unlock.commandText()); });
    command->setEnabled(unlock.isAvailable() && record.exists());
    command->setToolTip(
        QObject::tr("The compare-and-set command, to run in redis-cli with a user allowed to write"));
    auto *separator = new QAction(parent);
    separator->setSeparator(true);
    actions << separator;
    const bool writable = canWrite && record.exists();
    QAction *force = add(QStringLiteral("forceUnlock"), QObject::tr("Force Unlock…"),
                         [act] { act(LockAction::Type::ForceUnlock); });
    force->setEnabled(writable && unlock.isAvailable());
    QAction *ttl
        = add(QStringLiteral("setTtl"), QObject::tr("Set TTL…"), [act] { act(LockAction::Type::ExtendTtl); });
    ttl->setEnabled(writable && LockActions::extendTtl(record, 60000).isAvailable());
    // A fair lock's queue left behind (its lock key may be gone): removable from its row, not only from the
    // bottom of the details pane.
    QAction *orphan = nullptr;
    if (record.hasDiagnosis(QStringLiteral("orphan-queue"))) {
        const LockAction remove = LockActions::removeOrphanQueue(record);
        orphan = add(QStringLiteral("removeOrphanQueue"), QObject::tr("Remove Orphan Queue…"),
                     [act] { act(LockAction::Type::RemoveOrphanQueue); });
        orphan->setEnabled(canWrite && remove.isAvailable());
        const QString what
            = QObject::tr("Deletes the queue's keys if they still hold exactly the waiters read");
        orphan->setToolTip(remove.isAvailable() ? what : remove.unavailable);
    }
    const QString why = connected
        ? QObject::tr("Read-only connection: reconnect with Read-only unticked to act")
        : QObject::tr("Not connected");
    if (!writable) {
        force->setToolTip(why);
        ttl->setToolTip(why);
    }
    if (orphan && !canWrite)
        orphan->setToolTip(why);
    return actions;
}

} // namespace LockRowActions
