// What a story's keys held in Redis at one moment of a run: read when a narrated step came due and once when
// the story ended, so that stepping through a recorded run can show the keys as they really were then.
#pragma once

#include <QList>
#include <QString>

struct StorySnapshot
{
    struct Key
    {
        QByteArray key;
        QString type; // "none" when the key did not exist; empty when it could not be read
        qint64 pttlMs = -2; // as PTTL says: -1 no expiry, -2 no key; meaningless when `unread` is set
        QString value; // the value, shortened for a screen ("field=value, …" for a hash)
        QString unread; // why this key could not be read; empty when it was
    };
    struct Server
    {
        QString endpoint;
        QList<Key> keys;
        QString unread; // why this server could not be read at all (paused, killed); empty when it was
    };

    int stepIndex = -1; // the scenario step about to be carried out; -1: the story's end
    qint64 requestedUs = 0; // run time when the step came due
    qint64 readUs = 0; // run time when the reading finished
    // The server was slow to answer and the step went ahead before the reading was done: it may already show
    // some of that step's effects.
    bool late = false;
    QList<Server> servers;
};
