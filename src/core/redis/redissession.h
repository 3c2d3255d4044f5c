// A connection the GUI thread can use without ever blocking: every command runs on the session's own
// thread, and results come back as signals or callbacks on the caller's thread.
#pragma once

#include "connectionsettings.h"
#include "rediserror.h"
#include "redisresult.h"
#include "serverinfo.h"
#include "workerthread.h"

#include <QObject>

#include <functional>
#include <memory>

using RedisCommand = QList<QByteArray>;

class RedisSession : public QObject
{
    Q_OBJECT
public:
    explicit RedisSession(QObject *parent = nullptr);
    ~RedisSession() override;

    // Connects in the background; ends with opened() or failed().
    void open(const ConnectionSettings &settings);
    void close();
    // Reads ServerInfo again (key count changes); emits infoChanged(), or connectionLost() if the server went
    // away.
    void refreshInfo();
    // Runs one command on the session thread; `done` runs on the session's (GUI) thread unless `context` is
    // gone.
    void run(const RedisCommand &args, QObject *context, std::function<void(const RedisResult &)> done);

    bool isOpen() const { return m_open; }
    bool isBusy() const { return m_busy; }
    const ServerInfo &info() const { return m_info; }
    const ConnectionSettings &settings() const { return m_settings; }

signals:
    void opening(const QString &endpoint);
    void opened(const ServerInfo &info);
    void failed(const RedisError &error);
    void infoChanged(const ServerInfo &info);
    void connectionLost(const RedisError &error);
    void closed();

private:
    struct Shared;
    void post(std::function<void(Shared &)> job);

    WorkerThread m_worker; // its generation: the open() or close() whose results are current
    std::shared_ptr<Shared> m_shared;
    ConnectionSettings m_settings;
    ServerInfo m_info;
    bool m_open = false;
    bool m_busy = false;
};
