// OutputFile, the export file every report, CSV and picture goes through: written whole or not at all. A full
// device, a file-size limit or a missing folder is an error with its reason, and the target keeps whatever
// it held before.
#include "outputfile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>

class TestOutputFile : public QObject
{
    Q_OBJECT
private slots:
    void writesTheWholeFile();
    void aFullDeviceIsAnError();
    void aFailedWriteKeepsTheOldFile();
    void badPathsFailAtOpen_data();
    void badPathsFailAtOpen();
};

void TestOutputFile::writesTheWholeFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.json"));
    QString reason;
    QVERIFY2(OutputFile::writeWhole(path, "{\"ok\": true}\n", &reason), qPrintable(reason));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("{\"ok\": true}\n"));
}

void TestOutputFile::aFullDeviceIsAnError()
{
    QString reason;
    QVERIFY(!OutputFile::writeWhole(QStringLiteral("/dev/full"), QByteArray(100000, 'x'), &reason));
    QCOMPARE(reason, QStringLiteral("No space left on device"));
}

void TestOutputFile::aFailedWriteKeepsTheOldFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("events.csv"));
    QVERIFY(OutputFile::writeWhole(path, "the previous export\n", nullptr));

    // A 16 KiB file-size limit for this process: the write fails with EFBIG (SIGXFSZ ignored, as the CLI
    // does).
    rlimit old = {};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 16 * 1024;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
    OutputFile file(path);
    const bool opened = file.open();
    const bool wrote = opened && file.write(QByteArray(64 * 1024, 'x'));
    const bool committed = opened && file.commit();
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previousHandler);

    QVERIFY(opened);
    QVERIFY(!wrote);
    QVERIFY(!committed);
    QCOMPARE(file.errorText(), QStringLiteral("cannot write %1: File too large").arg(path));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("the previous export\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("events.csv")});
}

void TestOutputFile::badPathsFailAtOpen_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    QTest::newRow("a folder") << QStringLiteral("/tmp") << QStringLiteral("it is a folder");
    QTest::newRow("a missing folder") << QStringLiteral("/nonexistent/x.json") << QString();
    QTest::newRow("/proc") << QStringLiteral("/proc/x.json") << QString();
}

void TestOutputFile::badPathsFailAtOpen()
{
    QFETCH(QString, path);
    QFETCH(QString, reason);
    OutputFile file(path);
    QVERIFY(!file.open());
    QVERIFY(!file.reason().isEmpty());
    if (!reason.isEmpty())
        QCOMPARE(file.reason(), reason);
    QVERIFY(file.errorText().startsWith(QStringLiteral("cannot write ") + path + QStringLiteral(": ")));
}

QTEST_GUILESS_MAIN(TestOutputFile)
#include "tst_outputfile.moc"
