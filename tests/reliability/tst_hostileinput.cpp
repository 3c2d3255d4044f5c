// The hostile input corpus (tests/corpus/cases.json): cut and malformed RESP replies, broken scenario files,
// bad command lines and poisonous keys on a real server. Every case must end in a clear error (or a
// correct reading), within bounds, without a hang or a crash.
#include "inspect/lockkind.h"
#include "inspect/lockscanjob.h"
#include "redis/bytes.h"
#include "redis/redisreply.h"
#include "sim/scenarioparser.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace {

QString corpusDir()
{
    return QStringLiteral(LOCKSCOPE_CORPUS_DIR);
}

QByteArray unescape(const QString &text)
{
    bool ok = false;
    const QByteArray bytes = Bytes::parseEscaped(text, &ok);
    if (!ok)
        qFatal("corpus: bad escape in %s", qPrintable(text));
    return bytes;
}

// The input bytes of a case: repeat.head + prefix×times + (file | bytes) + suffix×times.
QByteArray inputOf(const QJsonObject &c)
{
    QByteArray body;
    if (c.contains(QLatin1String("file"))) {
        QFile f(corpusDir() + u'/' + c.value(QLatin1String("file")).toString());
        if (!f.open(QIODevice::ReadOnly))
            qFatal("corpus: cannot read %s", qPrintable(f.fileName()));
        body = f.readAll();
    } else {
        body = unescape(c.value(QLatin1String("bytes")).toString());
    }
    const QJsonObject repeat = c.value(QLatin1String("repeat")).toObject();
    if (repeat.isEmpty())
        return body;
    const int times = repeat.value(QLatin1String("times")).toInt();
    return unescape(repeat.value(QLatin1String("head")).toString())
        + unescape(repeat.value(QLatin1String("prefix")).toString()).repeated(times) + body
        + unescape(repeat.value(QLatin1String("suffix")).toString()).repeated(times);
}

QStringList stringsOf(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out << s.toString();
    return out;
}

// "" when `text` holds every expected piece, else which one is missing.
QString missing(const QString &text, const QStringList &expected)
{
    for (const QString &e : expected) {
        if (!text.contains(e, Qt::CaseInsensitive))
            return QStringLiteral("'%1' not in: %2").arg(e, text.left(600));
    }
    return {};
}

QByteArray keyOf(const QString &text)
{
    if (text == QLatin1String("{bigkey}"))
        return "lock:" + QByteArray(1 << 20, 'k');
    return unescape(text);
}

} // namespace

class TestHostileInput : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void corpus_data();
    void corpus();
    void corpusIsBigEnough();
    void inspectCliSurvivesTheWholeKeyspace();

private:
    void resp(const QJsonObject &c);
    void scenario(const QJsonObject &c);
    void cli(const QJsonObject &c);
    void keys(const QJsonObject &c);

    QList<QJsonObject> m_cases;
    SandboxServer m_server;
    QTemporaryDir m_dir;
    ScanOptions m_options;
    QHash<QByteArray, LockRecord> m_scanned;
    RedisError m_scanError;
};

void TestHostileInput::initTestCase()
{
    QFile f(corpusDir() + QStringLiteral("/cases.json"));
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    QVERIFY2(!doc.isNull(), qPrintable(error.errorString()));
    for (const QJsonValue &v : doc.object().value(QLatin1String("cases")).toArray())
        m_cases << v.toObject();

    // One server holds every poisonous key; one scan reads them all, as the inspector would.
    LS_START(m_server);
    // Setting up is not under test: a 200,000-field hash built by one script takes a few hundred ms on an
    // idle machine and several seconds on a busy one; the default 3 s would fail the set-up, not LockScope.
    ConnectionSettings setup = m_server.connectionSettings();
    setup.commandTimeoutMs = 120000;
    RedisConnection admin(setup);
    LS_OPEN(admin);
    for (const QJsonObject &c : std::as_const(m_cases)) {
        if (c.value(QLatin1String("kind")).toString() != QLatin1String("keys"))
            continue;
        for (const QJsonValue &command : c.value(QLatin1String("setup")).toArray()) {
            RedisCommand args;
            for (const QJsonValue &a : command.toArray())
                args << keyOf(a.toString());
            const RedisResult r = admin.command(args);
            QVERIFY2(r.ok() && !r.reply.isError(),
                     qPrintable(c.value(QLatin1String("name")).toString() + QStringLiteral(": ")
                                + r.error.message() + r.reply.toDisplayString()));
        }
    }
    RedisConnection reader(m_server.connectionSettings());
    reader.setReadOnly(true);
    LS_OPEN(reader);
    m_options.count = 10; // many small pages: every poisonous key meets the page logic
    LockScanJob job(reader, m_options);
    for (int guard = 0; !job.atEnd() && guard < 10000; ++guard) {
        for (const LockRecord &r : job.nextPage())
            m_scanned.insert(r.key, r);
    }
    m_scanError = job.error();
    QVERIFY2(!m_scanError, qPrintable(m_scanError.message()));
    QVERIFY(job.progress().finished);
}

void TestHostileInput::corpus_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < m_cases.size(); ++i) {
        const QJsonObject &c = m_cases.at(i);
        QTest::newRow(qPrintable(c.value(QLatin1String("name")).toString())) << i;
    }
}

void TestHostileInput::corpus()
{
    QFETCH(int, index);
    const QJsonObject c = m_cases.at(index);
    const QString kind = c.value(QLatin1String("kind")).toString();
    if (kind == QLatin1String("resp"))
        resp(c);
    else if (kind == QLatin1String("scenario"))
        scenario(c);
    else if (kind == QLatin1String("cli"))
        cli(c);
    else if (kind == QLatin1String("keys"))
        keys(c);
    else
        QFAIL(qPrintable(QStringLiteral("unknown kind ") + kind));
}

void TestHostileInput::resp(const QJsonObject &c)
{
    const QByteArray input = inputOf(c);
    const bool expectOk = c.value(QLatin1String("ok")).toBool();
    RedisReply reply;
    QString error;
    const bool ok = RedisReply::parse(input, &reply, &error);
    QCOMPARE(ok, expectOk);
    if (ok) {
        const QString shown = reply.toDisplayString();
        QVERIFY2(shown.startsWith(c.value(QLatin1String("display")).toString()), qPrintable(shown));
    } else {
        const QString why = missing(error, stringsOf(c.value(QLatin1String("error"))));
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }
    // The same reply cut at any byte (every byte for small inputs, 200 places for big ones) is refused as
    // incomplete or malformed, never half-read.
    const qsizetype step = qMax<qsizetype>(1, input.size() / 200);
    for (qsizetype cut = 0; cut < input.size(); cut += step) {
        QString cutError;
        RedisReply partial;
        if (RedisReply::parse(input.left(cut), &partial, &cutError))
            QFAIL(qPrintable(QStringLiteral("a cut at %1 of %2 bytes parsed as %3")
                                 .arg(cut)
                                 .arg(input.size())
                                 .arg(partial.toDisplayString())));
        QVERIFY2(cutError.contains(QLatin1String("incomplete"))
                     || cutError.contains(QLatin1String("malformed")),
                 qPrintable(cutError));
    }
}

void TestHostileInput::scenario(const QJsonObject &c)
{
    const QByteArray input = inputOf(c);
    const QStringList expected = stringsOf(c.value(QLatin1String("error")));
    Scenario parsed;
    QStringList errors;
    QVERIFY2(!ScenarioParser().parse(input, &parsed, &errors), "a hostile scenario was accepted");
    QVERIFY(!errors.isEmpty());
    const QString why = missing(errors.join(u'\n'), expected);
    QVERIFY2(why.isEmpty(), qPrintable(why));

    // The CLI says the same and exits 2 (bad scenario), without starting anything.
    const QString path = m_dir.filePath(QStringLiteral("case-%1.json").arg(m_cases.indexOf(c)));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(input);
    f.close();
    const auto r = TestSupport::run(TestSupport::cliPath(), {"simulate", path},
                                    QProcessEnvironment::systemEnvironment(), 30000);
    QVERIFY2(r.finished, "lockscope-cli simulate hung");
    QCOMPARE(r.exitCode, 2);
    const QString cliWhy = missing(r.err, {expected.first()});
    QVERIFY2(cliWhy.isEmpty(), qPrintable(cliWhy));
    QVERIFY2(r.err.size() < 4000, "the error message repeats the hostile input"); // bounded, readable
}

void TestHostileInput::cli(const QJsonObject &c)
{
    QStringList args;
    for (QString a : stringsOf(c.value(QLatin1String("args")))) {
        a.replace(QLatin1String("{port}"), QString::number(m_server.port()));
        a.replace(QLatin1String("{deadport}"), QString::number(LoopbackPorts::freePort()));
        a.replace(QLatin1String("{corpus}"), corpusDir());
        args << a;
    }
    const auto r
        = TestSupport::run(TestSupport::cliPath(), args, QProcessEnvironment::systemEnvironment(), 30000);
    QVERIFY2(r.finished, qPrintable(QStringLiteral("lockscope-cli hung: ") + args.join(u' ')));
    QVERIFY2(r.exitCode == c.value(QLatin1String("exit")).toInt(),
             qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
    const QString why = missing(r.err, stringsOf(c.value(QLatin1String("error"))));
    QVERIFY2(why.isEmpty(), qPrintable(why));
}

void TestHostileInput::keys(const QJsonObject &c)
{
    const QByteArray key = keyOf(c.value(QLatin1String("key")).toString());
    const bool listed = m_scanned.contains(key);
    QCOMPARE(listed, c.value(QLatin1String("listed")).toBool(true));
    if (!listed)
        return;
    const LockRecord r = m_scanned.value(key);
    // Whatever is stored, what was read stays within the scan's bounds.
    QVERIFY2(r.value.size() <= m_options.maxValueBytes, qPrintable(QString::number(r.value.size())));
    QVERIFY2(r.fields.size() <= 2 * m_options.maxHashFields, qPrintable(QString::number(r.fields.size())));
    QVERIFY(r.queue.size() <= m_options.maxQueue);
    if (c.contains(QLatin1String("truncated")))
        QCOMPARE(r.isTruncated(), c.value(QLatin1String("truncated")).toBool());
    if (c.contains(QLatin1String("kind_is")))
        QCOMPARE(LockKinds::name(r.kind), c.value(QLatin1String("kind_is")).toString());
    if (c.contains(QLatin1String("problem"))) {
        const QString why = missing(r.problems.join(u'\n'), {c.value(QLatin1String("problem")).toString()});
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }
    QVERIFY2(!r.reason.isEmpty(), "every listed key says why it is what it is");
}

void TestHostileInput::corpusIsBigEnough()
{
    QVERIFY2(m_cases.size() >= 30, qPrintable(QString::number(m_cases.size())));
    QSet<QString> kinds;
    for (const QJsonObject &c : std::as_const(m_cases))
        kinds.insert(c.value(QLatin1String("kind")).toString());
    QCOMPARE(kinds.size(), 4);
}

void TestHostileInput::inspectCliSurvivesTheWholeKeyspace()
{
    const auto r
        = TestSupport::run(TestSupport::cliPath(),
                           {"inspect", "--port", QString::number(m_server.port()), "--json", "--count", "10"},
                           QProcessEnvironment::systemEnvironment(), 60000);
    QVERIFY2(r.finished, "lockscope-cli inspect hung");
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(!doc.isNull(), qPrintable(error.errorString()));
    QCOMPARE(doc.object().value(QLatin1String("locks")).toArray().size(), qsizetype(m_scanned.size()));
    // A 10 MB value and a 200000-field hash are not copied out: the report stays small.
    QVERIFY2(r.out.size() < 4 * 1024 * 1024, qPrintable(QString::number(r.out.size())));
}

QTEST_GUILESS_MAIN(TestHostileInput)
#include "tst_hostileinput.moc"
