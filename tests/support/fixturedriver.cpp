// FixtureDriver: the drivers' contract is in tests/libraries/node/_common.js.
#include "fixturedriver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

std::unique_ptr<FixtureDriver> FixtureDriver::start(const QString &librariesDir, const QString &name,
                                                    int port, const QString &prefix, QString *error)
{
    QFile list(librariesDir + QStringLiteral("/drivers.json"));
    if (!list.open(QIODevice::ReadOnly)) {
        *error = list.errorString();
        return nullptr;
    }
    for (const QJsonValue &v :
         QJsonDocument::fromJson(list.readAll()).object().value(QLatin1String("drivers")).toArray()) {
        if (v.toObject().value(QLatin1String("name")).toString() != name)
            continue;
        auto d = std::make_unique<FixtureDriver>();
        d->name = name;
        QStringList argv;
        for (const QJsonValue &a : v.toObject().value(QLatin1String("argv")).toArray())
            argv << a.toString().replace(QLatin1String("${dir}"), librariesDir);
        argv << QStringLiteral("--port") << QString::number(port) << QStringLiteral("--prefix") << prefix;
        d->process = std::make_unique<QProcess>();
        d->process->start(argv.takeFirst(), argv);
        QByteArray pending;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 60000) {
            if (!d->process->waitForReadyRead(500) && d->process->state() == QProcess::NotRunning)
                break;
            pending += d->process->readAllStandardOutput();
            qsizetype nl;
            while ((nl = pending.indexOf('\n')) >= 0) {
                const QJsonObject o = QJsonDocument::fromJson(pending.left(nl)).object();
                pending.remove(0, nl + 1);
                if (o.contains(QLatin1String("made")))
                    d->made << o.value(QLatin1String("made")).toObject();
                if (o.value(QLatin1String("ready")).toBool())
                    return d;
            }
        }
        *error = QStringLiteral("%1 never became ready: %2")
                     .arg(name, QString::fromUtf8(d->process->readAllStandardError()));
        return nullptr;
    }
    *error = QStringLiteral("no driver %1").arg(name);
    return nullptr;
}

void FixtureDriver::stop()
{
    process->closeWriteChannel();
    if (!process->waitForFinished(5000))
        process->kill();
}
