// KeyPattern: uuids first (their dashes would split them), then each run of letters and digits on its own:
// an id-like run (hex with a digit, or a long mix of letters and digits) becomes `*` whole, and any other
// run keeps its letters with its numbers folded.
#include "keypattern.h"

#include "redis/bytes.h"

#include <QRegularExpression>

namespace {

bool isIdLike(QStringView run)
{
    bool digit = false, letter = false, hex = true;
    for (const QChar c : run) {
        digit = digit || c.isDigit();
        letter = letter || c.isLetter();
        hex = hex && (c.isDigit() || (c.toLower() >= u'a' && c.toLower() <= u'f'));
    }
    // A hash, an object id, a random token: 8 or more hex characters with a digit among them. Or a long
    // mix of letters and digits (base62 and nanoid ids): no word of a key's name looks like that.
    return digit && ((hex && run.size() >= 8) || (letter && run.size() >= 16));
}

QString foldRun(QStringView run)
{
    if (isIdLike(run))
        return QStringLiteral("*");
    QString out;
    bool inNumber = false;
    for (const QChar c : run) {
        if (c.isDigit()) {
            if (!inNumber)
                out += u'*';
            inNumber = true;
        } else {
            out += c;
            inNumber = false;
        }
    }
    return out;
}

} // namespace

QString KeyPattern::fold(const QByteArray &key)
{
    static const QRegularExpression uuid(
        QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"));
    QString text = Bytes::display(key, 512);
    text.replace(uuid, QStringLiteral("*"));
    QString out;
    out.reserve(text.size());
    qsizetype i = 0;
    while (i < text.size()) {
        if (!text.at(i).isLetterOrNumber()) {
            // Two folded parts next to each other say no more than one.
            if (!(text.at(i) == u'*' && out.endsWith(u'*')))
                out += text.at(i);
            ++i;
            continue;
        }
        qsizetype end = i;
        while (end < text.size() && text.at(end).isLetterOrNumber())
            ++end;
        const QString run = foldRun(QStringView(text).mid(i, end - i));
        if (!(run == QLatin1String("*") && out.endsWith(u'*')))
            out += run;
        i = end;
    }
    if (out.size() > kMaxLength)
        out = out.left(kMaxLength - 1) + QChar(0x2026);
    return out;
}
