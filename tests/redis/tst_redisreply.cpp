// RedisReply and Bytes: parsing RESP, conversions, display escaping. No server needed.
#include "redis/bytes.h"
#include "redis/redisreply.h"

#include <QTest>

class TestRedisReply : public QObject
{
    Q_OBJECT
private slots:
    void parsesEveryType();
    void parsesNestedArrays();
    void refusesIncompleteAndMalformed();
    void integerConversion();
    void displayEscapesBinary();
    void displayNameIsWhatAPersonCopies();
    void escapedRoundTrip_data();
    void escapedRoundTrip();
    void parseEscapedReportsBadEscapes();
};

void TestRedisReply::parsesEveryType()
{
    RedisReply r;
    QVERIFY(RedisReply::parse("+OK\r\n", &r));
    QCOMPARE(r.type(), RedisReply::Type::Status);
    QCOMPARE(r.bytes(), QByteArray("OK"));

    QVERIFY(RedisReply::parse("-WRONGTYPE Operation against a key\r\n", &r));
    QVERIFY(r.isError());
    QVERIFY(r.bytes().startsWith("WRONGTYPE"));

    QVERIFY(RedisReply::parse(":-42\r\n", &r));
    QVERIFY(r.isInteger());
    QCOMPARE(r.toInteger(), -42);

    QVERIFY(RedisReply::parse(QByteArray("$4\r\na\0b\xff\r\n", 10), &r));
    QVERIFY(r.isString());
    QCOMPARE(r.bytes(), QByteArray("a\0b\xff", 4));

    QVERIFY(RedisReply::parse("$-1\r\n", &r));
    QVERIFY(r.isNil());
    QCOMPARE(r, RedisReply::nil());
}

void TestRedisReply::parsesNestedArrays()
{
    RedisReply r;
    QVERIFY(RedisReply::parse("*2\r\n$1\r\n0\r\n*2\r\n$3\r\nfoo\r\n:7\r\n", &r));
    QVERIFY(r.isArray());
    QCOMPARE(r.size(), 2);
    QCOMPARE(r.at(0).bytes(), QByteArray("0"));
    QCOMPARE(r.at(1).at(1).toInteger(), 7);
    QCOMPARE(r.toDisplayString(), QStringLiteral("[\"0\", [\"foo\", (integer) 7]]"));
    QVERIFY(RedisReply::parse("*0\r\n", &r));
    QCOMPARE(r.toDisplayString(), QStringLiteral("(empty array)"));
}

void TestRedisReply::refusesIncompleteAndMalformed()
{
    RedisReply r;
    QString error;
    QVERIFY(!RedisReply::parse("*3\r\n:1\r\n", &r, &error));
    QVERIFY2(error.contains(QLatin1String("incomplete")), qPrintable(error));
    QVERIFY(!RedisReply::parse("$10\r\nabc", &r, &error));
    QVERIFY(error.contains(QLatin1String("incomplete")));
    QVERIFY(!RedisReply::parse("?what\r\n", &r, &error));
    QVERIFY2(error.contains(QLatin1String("malformed")), qPrintable(error));
    QVERIFY(!RedisReply::parse("", &r, &error));
}

void TestRedisReply::integerConversion()
{
    bool ok = false;
    QCOMPARE(RedisReply::string("123").toInteger(&ok), 123);
    QVERIFY(ok);
    RedisReply::string("12a").toInteger(&ok);
    QVERIFY(!ok);
    RedisReply::nil().toInteger(&ok);
    QVERIFY(!ok);
    QCOMPARE(RedisReply::integer(-5).toInteger(&ok), -5);
    QVERIFY(ok);
}

void TestRedisReply::displayEscapesBinary()
{
    QCOMPARE(Bytes::display(QByteArray("lock:\xff\x00z", 8)), QStringLiteral("lock:\\xff\\x00z"));
    QCOMPARE(Bytes::display("say \"hi\"\n"), QStringLiteral("say \\\"hi\\\"\\n"));
    QCOMPARE(Bytes::display("zürich"), QStringLiteral("zürich"));
    QVERIFY(Bytes::isPrintableUtf8("zürich"));
    QVERIFY(!Bytes::isPrintableUtf8(QByteArray("a\x01", 2)));
    QVERIFY(!Bytes::isPrintableUtf8("\xc3("));
    const QString cut = Bytes::display(QByteArray(300, 'x'), 10);
    QVERIFY(cut.startsWith(QStringLiteral("xxxxxxxxxx…")));
    QVERIFY(cut.contains(QLatin1String("300 bytes")));
    QCOMPARE(RedisReply::string(QByteArray("\x01", 1)).toDisplayString(), QStringLiteral("\"\\x01\""));
    QCOMPARE(RedisReply::error("ERR x").toDisplayString(), QStringLiteral("(error) ERR x"));
}

// A key in a table is pasted into redis-cli or a script: printable names come out as they are (quotes and
// backslashes too, App\Jobs\… stays one backslash each); the others are quoted and escaped, so they are
// never taken for plain text.
void TestRedisReply::displayNameIsWhatAPersonCopies()
{
    QCOMPARE(Bytes::displayName(R"(resque:lock:q:["2024-06"])"), QStringLiteral(R"(resque:lock:q:["2024-06"])"));
    QCOMPARE(Bytes::displayName(R"(App\Jobs\SendInvoice42)"), QStringLiteral(R"(App\Jobs\SendInvoice42)"));
    QCOMPARE(Bytes::displayName("zürich:lock"), QStringLiteral("zürich:lock"));
    QCOMPARE(Bytes::displayName(QByteArray("lock:\xff", 6)), QStringLiteral("\"lock:\\xff\""));
    QCOMPARE(Bytes::displayName("two\nlines"), QStringLiteral("\"two\\nlines\""));
    QCOMPARE(Bytes::displayName("\"quoted\""), QStringLiteral("\"\\\"quoted\\\"\""));
    const QString cut = Bytes::displayName(QByteArray(300, 'x'), 10);
    QCOMPARE(cut, QStringLiteral("xxxxxxxxxx…(300 bytes)"));
    // What is quoted parses back to the key.
    const QByteArray binary("a\x00\"b", 4);
    QString shown = Bytes::displayName(binary);
    QVERIFY(shown.startsWith(u'"') && shown.endsWith(u'"'));
    QCOMPARE(Bytes::parseEscaped(shown.mid(1, shown.size() - 2)), binary);
}

void TestRedisReply::escapedRoundTrip_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("plain") << QByteArray("lock:order:42");
    QTest::newRow("binary") << QByteArray("\x00\x01\xfe\xff", 4);
    QTest::newRow("quotes") << QByteArray("a\"b\\c");
    QTest::newRow("controls") << QByteArray("\r\n\t");
    QTest::newRow("utf8") << QByteArray("ключ");
}

void TestRedisReply::escapedRoundTrip()
{
    QFETCH(QByteArray, bytes);
    bool ok = false;
    QCOMPARE(Bytes::parseEscaped(Bytes::display(bytes), &ok), bytes);
    QVERIFY(ok);
}

void TestRedisReply::parseEscapedReportsBadEscapes()
{
    bool ok = true;
    Bytes::parseEscaped(QStringLiteral("bad\\q"), &ok);
    QVERIFY(!ok);
    Bytes::parseEscaped(QStringLiteral("bad\\xZZ"), &ok);
    QVERIFY(!ok);
}

QTEST_GUILESS_MAIN(TestRedisReply)
#include "tst_redisreply.moc"
