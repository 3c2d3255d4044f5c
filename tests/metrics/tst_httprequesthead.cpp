// HttpRequestHead on its own: a head read whole and split at every byte gives the same request; the byte limit
// holds exactly at its boundary; bad request lines and headers, folding and stray CRs are refused; pipelined
// bytes are left for the next request; keep-alive and bodies are read from the headers as HTTP/1.x says.
#include "httprequesthead.h"

#include <QTest>

using State = HttpRequestHead::State;

class TestHttpRequestHead : public QObject
{
    Q_OBJECT
private slots:
    void wholeHead();
    void splitAtEveryByte();
    void bareLineFeeds();
    void limitExactAtBoundary();
    void endlessHeaderIsRefusedAtTheLimit();
    void endlessLineWithoutNewline();
    void badHeads_data();
    void badHeads();
    void pipelinedBytesAreLeft();
    void keepAlive_data();
    void keepAlive();
    void bodies();
    void resetReadsTheNext();
};

namespace {

const QByteArray kHead = "GET /metrics?x=1 HTTP/1.1\r\n"
                         "Host: 127.0.0.1:9817\r\n"
                         "Accept:application/openmetrics-text;version=1.0.0,*/*;q=0.1\r\n"
                         "X-Empty:\r\n"
                         "authorization:   Basic YTpi  \r\n"
                         "\r\n";

void checkParsed(const HttpRequestHead &h)
{
    QCOMPARE(h.state(), State::Complete);
    QCOMPARE(h.method(), QByteArray("GET"));
    QCOMPARE(h.target(), QByteArray("/metrics?x=1"));
    QCOMPARE(h.minorVersion(), 1);
    QCOMPARE(h.header("HOST"), QByteArray("127.0.0.1:9817"));
    QCOMPARE(h.header("accept"), QByteArray("application/openmetrics-text;version=1.0.0,*/*;q=0.1"));
    QCOMPARE(h.header("Authorization"), QByteArray("Basic YTpi"));
    QVERIFY(h.hasHeader("x-empty"));
    QCOMPARE(h.header("x-empty"), QByteArray());
    QVERIFY(!h.hasHeader("cookie"));
    QCOMPARE(h.headers().size(), 4);
}

} // namespace

void TestHttpRequestHead::wholeHead()
{
    HttpRequestHead h;
    QCOMPARE(h.feed(kHead), kHead.size());
    checkParsed(h);
    QCOMPARE(h.bytesRead(), kHead.size());
    // Once complete, it takes nothing more.
    QCOMPARE(h.feed(QByteArray("GET / HTTP/1.1\r\n")), 0);
}

void TestHttpRequestHead::splitAtEveryByte()
{
    for (qsizetype cut = 0; cut <= kHead.size(); ++cut) {
        HttpRequestHead h;
        QCOMPARE(h.feed(kHead.left(cut)), cut);
        QCOMPARE(h.state(), cut == kHead.size() ? State::Complete : State::NeedMore);
        QCOMPARE(h.feed(kHead.mid(cut)), kHead.size() - cut);
        checkParsed(h);
    }
    // And one byte at a time.
    HttpRequestHead h;
    for (const char c : kHead)
        QCOMPARE(h.feed(&c, 1), 1);
    checkParsed(h);
}

void TestHttpRequestHead::bareLineFeeds()
{
    QByteArray head = kHead;
    head.replace("\r\n", "\n");
    HttpRequestHead h;
    QCOMPARE(h.feed(head), head.size());
    checkParsed(h);
    // Blank lines before the request line are ignored (RFC 9112 §2.2).
    HttpRequestHead lead;
    lead.feed("\r\n\n" + kHead);
    checkParsed(lead);
}

void TestHttpRequestHead::limitExactAtBoundary()
{
    const QByteArray start = "GET / HTTP/1.1\r\nX-Pad: ";
    const QByteArray end = "\r\n\r\n";
    const qsizetype limit = 1024;
    const QByteArray exact = start + QByteArray(limit - start.size() - end.size(), 'a') + end;
    QCOMPARE(exact.size(), limit);
    for (const qsizetype cut : {qsizetype(0), qsizetype(1), limit / 2, limit - 1, limit}) {
        HttpRequestHead h(limit);
        h.feed(exact.left(cut));
        h.feed(exact.mid(cut));
        QCOMPARE(h.state(), State::Complete);
        QCOMPARE(h.header("x-pad").size(), limit - start.size() - end.size());
    }
    const QByteArray over = start + QByteArray(limit - start.size() - end.size() + 1, 'a') + end;
    for (const qsizetype cut : {qsizetype(0), qsizetype(1), limit / 2, limit - 1, limit, limit + 1}) {
        HttpRequestHead h(limit);
        h.feed(over.left(cut));
        h.feed(over.mid(cut));
        QCOMPARE(h.state(), State::TooLarge);
        QCOMPARE(h.errorStatus(), 431);
    }
}

void TestHttpRequestHead::endlessHeaderIsRefusedAtTheLimit()
{
    HttpRequestHead h(16 * 1024);
    h.feed(QByteArray("GET / HTTP/1.1\r\n"));
    const QByteArray line = "X-Filler: " + QByteArray(100, 'z') + "\r\n";
    int lines = 0;
    while (h.state() == State::NeedMore && lines < 1000) {
        h.feed(line);
        ++lines;
    }
    QCOMPARE(h.state(), State::TooLarge);
    QVERIFY(lines * line.size() <= 16 * 1024 + line.size());
}

void TestHttpRequestHead::endlessLineWithoutNewline()
{
    HttpRequestHead h(4096);
    const QByteArray chunk(1000, 'G');
    QCOMPARE(h.feed(chunk), chunk.size());
    QCOMPARE(h.feed(chunk), chunk.size());
    QCOMPARE(h.feed(chunk), chunk.size());
    QCOMPARE(h.feed(chunk), chunk.size());
    QCOMPARE(h.state(), State::NeedMore); // 4000 of 4096
    h.feed(chunk);
    QCOMPARE(h.state(), State::TooLarge);
    QCOMPARE(h.errorStatus(), 431);
}

void TestHttpRequestHead::badHeads_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<int>("status");
    QTest::newRow("two words") << QByteArray("GET /\r\n\r\n") << 400;
    QTest::newRow("four words") << QByteArray("GET / x HTTP/1.1\r\n\r\n") << 400;
    QTest::newRow("double space") << QByteArray("GET  / HTTP/1.1\r\n\r\n") << 400;
    QTest::newRow("not http") << QByteArray("GET / SPDY/3\r\n\r\n") << 400;
    QTest::newRow("lower-case version") << QByteArray("GET / http/1.1\r\n\r\n") << 400;
    QTest::newRow("http/2") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
    QTest::newRow("http/0.9 style") << QByteArray("GET /\n") << 400;
    QTest::newRow("method with slash") << QByteArray("G/T / HTTP/1.1\r\n\r\n") << 400;
    QTest::newRow("tls on a plain port") << QByteArray("\x16\x03\x01\x02\x05\x01\x03\x03\n") << 400;
    QTest::newRow("folded header") << QByteArray("GET / HTTP/1.1\r\nX-A: 1\r\n  2\r\n\r\n") << 400;
    QTest::newRow("tab folded") << QByteArray("GET / HTTP/1.1\r\nX-A: 1\r\n\t2\r\n\r\n") << 400;
    QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : x\r\n\r\n") << 400;
    QTest::newRow("no colon") << QByteArray("GET / HTTP/1.1\r\nHost x\r\n\r\n") << 400;
    QTest::newRow("empty name") << QByteArray("GET / HTTP/1.1\r\n: x\r\n\r\n") << 400;
    QTest::newRow("stray CR in value") << QByteArray("GET / HTTP/1.1\r\nX-A: 1\r2\r\n\r\n") << 400;
    QTest::newRow("CR CR LF") << QByteArray("GET / HTTP/1.1\r\r\n\r\n") << 400;
    QTest::newRow("NUL") << QByteArray("GET / HTTP/1.1\r\nX-A: ") + '\0' + QByteArray("\r\n\r\n") << 400;
}

void TestHttpRequestHead::badHeads()
{
    QFETCH(QByteArray, head);
    QFETCH(int, status);
    HttpRequestHead h;
    h.feed(head);
    QCOMPARE(h.state(), State::Bad);
    QCOMPARE(h.errorStatus(), status);
    QVERIFY(!h.errorReason().isEmpty());
    // Split anywhere, it is refused alike.
    for (qsizetype cut = 1; cut < head.size(); ++cut) {
        HttpRequestHead s;
        s.feed(head.left(cut));
        s.feed(head.mid(cut));
        QCOMPARE(s.state(), State::Bad);
        QCOMPARE(s.errorStatus(), status);
    }
}

void TestHttpRequestHead::pipelinedBytesAreLeft()
{
    const QByteArray two = kHead + "GET /healthz HTTP/1.1\r\n\r\n";
    HttpRequestHead h;
    const qsizetype used = h.feed(two);
    QCOMPARE(used, kHead.size());
    checkParsed(h);
    h.reset();
    QCOMPARE(h.bytesRead(), 0);
    QCOMPARE(h.feed(two.mid(used)), two.size() - used);
    QCOMPARE(h.state(), State::Complete);
    QCOMPARE(h.target(), QByteArray("/healthz"));
}

void TestHttpRequestHead::keepAlive_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<bool>("keepAlive");
    QTest::newRow("1.1") << QByteArray("GET / HTTP/1.1\r\n\r\n") << true;
    QTest::newRow("1.1 close") << QByteArray("GET / HTTP/1.1\r\nConnection: close\r\n\r\n") << false;
    QTest::newRow("1.1 Close, listed") << QByteArray("GET / HTTP/1.1\r\nconnection: TE, Close\r\n\r\n") << false;
    QTest::newRow("1.1 close, second header")
        << QByteArray("GET / HTTP/1.1\r\nConnection: TE\r\nConnection: close\r\n\r\n") << false;
    QTest::newRow("1.1 closed (not a token)") << QByteArray("GET / HTTP/1.1\r\nConnection: closed\r\n\r\n")
                                              << true;
    QTest::newRow("1.0") << QByteArray("GET / HTTP/1.0\r\n\r\n") << false;
    QTest::newRow("1.0 keep-alive") << QByteArray("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") << true;
}

void TestHttpRequestHead::keepAlive()
{
    QFETCH(QByteArray, head);
    QFETCH(bool, keepAlive);
    HttpRequestHead h;
    h.feed(head);
    QCOMPARE(h.state(), State::Complete);
    QCOMPARE(h.keepAlive(), keepAlive);
}

void TestHttpRequestHead::bodies()
{
    const auto announces = [](const QByteArray &headers) {
        HttpRequestHead h;
        h.feed("GET / HTTP/1.1\r\n" + headers + "\r\n");
        return h.state() == State::Complete && h.announcesBody();
    };
    QVERIFY(!announces(""));
    QVERIFY(!announces("Content-Length: 0\r\n"));
    QVERIFY(announces("Content-Length: 5\r\n"));
    QVERIFY(announces("content-length: 0\r\nContent-Length: 5\r\n"));
    QVERIFY(announces("Transfer-Encoding: chunked\r\n"));
}

void TestHttpRequestHead::resetReadsTheNext()
{
    HttpRequestHead h(64);
    h.feed(QByteArray(100, 'x'));
    QCOMPARE(h.state(), State::TooLarge);
    h.reset();
    QCOMPARE(h.state(), State::NeedMore);
    h.feed(QByteArray("HEAD / HTTP/1.0\r\n\r\n"));
    QCOMPARE(h.state(), State::Complete);
    QCOMPARE(h.method(), QByteArray("HEAD"));
    QCOMPARE(h.minorVersion(), 0);
}

QTEST_APPLESS_MAIN(TestHttpRequestHead)
#include "tst_httprequesthead.moc"
