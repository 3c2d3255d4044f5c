// SecretStore: QtKeychain jobs, their error codes mapped to what LockScope does next. insecureFallback
// (QtKeychain's plain-text QSettings fallback) is never turned on.
#include "secretstore.h"

#include "logging.h"

#include <QEventLoop>
#include <QPointer>
#include <QTimer>

#include <qt6keychain/keychain.h>

namespace {

SecretStore::Result resultOf(QKeychain::Job *job, const QString &what)
{
    SecretStore::Result r;
    switch (job->error()) {
    case QKeychain::NoError:
        r.status = SecretStore::Status::Ok;
        return r;
    case QKeychain::EntryNotFound:
        r.status = SecretStore::Status::NotFound;
        r.error = QStringLiteral("the keychain has no %1 (it was deleted, or saved on another machine)")
                      .arg(what);
        return r;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError:
        // OtherError is what QtKeychain reports when D-Bus or the Secret Service is missing altogether.
        r.status = SecretStore::Status::Unavailable;
        r.error = QStringLiteral("no system keychain is available (%1)").arg(job->errorString());
        return r;
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
    case QKeychain::CouldNotDeleteEntry:
        break;
    }
    r.status = SecretStore::Status::Failed;
    r.error = QStringLiteral("the keychain refused access to the %1 (%2)").arg(what, job->errorString());
    return r;
}

// Runs `job` and hands its result to `done` on the context's thread, if the context still exists.
void runJob(QKeychain::Job *job, QObject *context, const QString &what, SecretStore::Callback done,
            bool notFoundIsOk = false)
{
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // never plain text on disk
    QPointer<QObject> guard(context);
    QObject::connect(job, &QKeychain::Job::finished, job,
                     [guard, done, what, notFoundIsOk](QKeychain::Job *j) {
                         SecretStore::Result r = resultOf(j, what);
                         if (notFoundIsOk && r.status == SecretStore::Status::NotFound)
                             r = {SecretStore::Status::Ok, {}, {}};
                         if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(j); read && r.ok())
                             r.secret = read->textData();
                         if (!r.ok())
                             qCInfo(lcProfiles) << "keychain:" << r.error;
                         if (guard)
                             done(r);
                     });
    job->start();
}

} // namespace

SecretStore::SecretStore(QObject *parent, const QString &service)
    : QObject(parent)
    , m_service(service)
{
}

void SecretStore::read(const QString &key, QObject *context, Callback done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setKey(key);
    runJob(job, context, QStringLiteral("saved password"), std::move(done));
}

void SecretStore::write(const QString &key, const QString &secret, QObject *context, Callback done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service, this);
    job->setKey(key);
    job->setTextData(secret);
    runJob(job, context, QStringLiteral("password"), std::move(done));
}

void SecretStore::remove(const QString &key, QObject *context, Callback done)
{
    auto *job = new QKeychain::DeletePasswordJob(m_service, this);
    job->setKey(key);
    runJob(job, context, QStringLiteral("saved password"), std::move(done), true);
}

void SecretStore::probe(QObject *context, Callback done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setKey(QStringLiteral("lockscope-probe/does-not-exist"));
    runJob(job, context, QStringLiteral("probe entry"), [done](const Result &r) {
        // "not found" means a keychain answered, which is all a probe wants to know
        done(r.status == Status::NotFound ? Result {Status::Ok, {}, {}} : r);
    });
}

SecretStore::Result SecretStore::waitFor(const std::function<void(Callback)> &start, int timeoutMs)
{
    Result result {
        Status::Failed, {}, QStringLiteral("the keychain did not answer within %1 s").arg(timeoutMs / 1000)};
    QEventLoop loop;
    bool finished = false;
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    start([&](const Result &r) {
        result = r;
        finished = true;
        loop.quit();
    });
    if (!finished)
        loop.exec();
    return result;
}

SecretStore::Result SecretStore::readNow(const QString &key, int timeoutMs)
{
    QObject context;
    return waitFor([&](Callback done) { read(key, &context, std::move(done)); }, timeoutMs);
}

SecretStore::Result SecretStore::writeNow(const QString &key, const QString &secret, int timeoutMs)
{
    QObject context;
    return waitFor([&](Callback done) { write(key, secret, &context, std::move(done)); }, timeoutMs);
}

SecretStore::Result SecretStore::removeNow(const QString &key, int timeoutMs)
{
    QObject context;
    return waitFor([&](Callback done) { remove(key, &context, std::move(done)); }, timeoutMs);
}
