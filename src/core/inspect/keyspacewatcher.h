// Live key changes from the server's keyspace notifications, on a thread and subscriber connection of its
// own. Checks CONFIG GET notify-keyspace-events first; when CONFIG is denied (a read-only ACL user) it
// listens anyway and says so, so the caller keeps polling until events actually arrive. On a Redis Cluster
// (settings.cluster) it subscribes on every master — a node publishes only its own keys' changes — and
// merges the events; its state is the weakest master's (one master down means polling must fill in).
#pragma once

#include "redis/connectionsettings.h"
#include "redis/workerthread.h"

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QStringList>

#include <memory>

struct KeyspaceEvent
{
    QByteArray key;
    QByteArray event; // "set", "del", "expired", "expire", "hincrby", …
    qint64 atMs = 0; // InspectClock::monotonicMs() when it arrived
    QString node; // on a cluster: the master that published it ("127.0.0.1:7000"); empty otherwise
};

Q_DECLARE_METATYPE(KeyspaceEvent)

class KeyspaceWatcher : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Stopped,
        Connecting,
        Listening, // notifications are on and we are subscribed
        ListeningUnconfirmed, // CONFIG GET was denied: subscribed, but events may never come
        NotificationsOff, // the server does not publish key changes: poll instead
        Failed, // cannot reach the server; retrying
    };
    Q_ENUM(State)

    explicit KeyspaceWatcher(QObject *parent = nullptr);
    ~KeyspaceWatcher() override;

    // (Re)starts watching the database of `settings` (always on a read-only connection of its own).
    void start(const ConnectionSettings &settings);
    // Stops at once; never waits on the network (the old job ends on its own; what it says is dropped).
    void stop();

    State state() const { return m_state; }
    QString stateText() const { return m_stateText; }
    // notify-keyspace-events as read from the server; empty when off or unknown.
    QString flags() const { return m_flags; }
    bool configReadable() const { return m_configReadable; }
    // True once events have actually been received (proof that notifications are on).
    bool hasReceivedEvents() const { return m_received; }

    // The value to CONFIG SET to add what the inspector needs (keyspace, generic, string, hash, list,
    // zset, expired events) to `current` without dropping what is already there.
    static QString flagsWithInspectorNeeds(const QString &current);
    // Whether `flags` publish what the inspector needs; otherwise `missing` says what is not published.
    static bool flagsSuffice(const QString &flags, QString *missing = nullptr);

signals:
    void stateChanged(KeyspaceWatcher::State state, const QString &text);
    void events(const QList<KeyspaceEvent> &batch);

private:
    struct Shared;
    struct NodeState
    {
        State state = State::Connecting;
        QString text;
        QString flags;
        bool configReadable = false;
    };
    void setState(State state, const QString &text, const QString &flags, bool configReadable);
    // One node's subscription changed state; on a cluster the watcher's state is then merged again.
    void setNodeState(const QString &node, State state, const QString &text, const QString &flags,
                      bool configReadable);
    // Subscribes on one server and delivers its events until told to stop (on the calling thread).
    static void watchNode(Shared &shared, const ConnectionSettings &settings, const QString &node);
    // Reads a cluster's masters, then watches each on a thread of its own until told to stop.
    static void watchCluster(Shared &shared, const ConnectionSettings &settings);

    // Runs one job per start(), abandoned by stop(): a subscriber in a connect cannot be woken, and the GUI
    // thread must not wait out a connect timeout. Its generation is the start()'s whose reports are current.
    WorkerThread m_worker;
    std::shared_ptr<Shared> m_shared; // the running job's; null when stopped
    State m_state = State::Stopped;
    QString m_stateText;
    QString m_flags;
    bool m_configReadable = false;
    bool m_received = false;
    QStringList m_nodes; // a cluster's masters, once known; empty on a single server
    QHash<QString, NodeState> m_nodeStates;
};
