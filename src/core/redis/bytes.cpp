// Bytes: display and parsing of binary-safe Redis strings.
#include "bytes.h"

#include <QList>

namespace Bytes {

static bool decodesCleanly(const QByteArray &bytes, QString *decoded)
{
    *decoded = QString::fromUtf8(bytes);
    return !decoded->contains(QChar::ReplacementCharacter) && decoded->toUtf8() == bytes;
}

bool isPrintableUtf8(const QByteArray &bytes)
{
    QString decoded;
    if (!decodesCleanly(bytes, &decoded))
        return false;
    for (QChar c : decoded) {
        if ((c.unicode() < 0x20 && c != u'\t' && c != u'\n') || c.unicode() == 0x7f)
            return false;
    }
    return true;
}

static void appendEscapedChar(QString &out, char32_t c)
{
    switch (c) {
    case U'"':
        out += QStringLiteral("\\\"");
        return;
    case U'\\':
        out += QStringLiteral("\\\\");
        return;
    case U'\n':
        out += QStringLiteral("\\n");
        return;
    case U'\r':
        out += QStringLiteral("\\r");
        return;
    case U'\t':
        out += QStringLiteral("\\t");
        return;
    default:
        break;
    }
    if (c < 0x20 || c == 0x7f)
        out += QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
    else
        out += QString::fromUcs4(&c, 1);
}

QString display(const QByteArray &bytes, int maxBytes)
{
    const QByteArray head = bytes.size() > maxBytes ? bytes.left(maxBytes) : bytes;
    QString out;
    QString decoded;
    if (decodesCleanly(head, &decoded)) {
        for (char32_t c : decoded.toUcs4())
            appendEscapedChar(out, c);
    } else {
        for (char b : head) {
            const auto u = static_cast<unsigned char>(b);
            if (u >= 0x80)
                out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
            else
                appendEscapedChar(out, u);
        }
    }
    if (bytes.size() > maxBytes)
        out += QStringLiteral("…(%1 bytes)").arg(bytes.size());
    return out;
}

QString displayName(const QByteArray &bytes, int maxBytes)
{
    const QByteArray head = bytes.size() > maxBytes ? bytes.left(maxBytes) : bytes;
    // A cut may fall inside a UTF-8 sequence: judge the whole name, then show its head.
    const bool plain = isPrintableUtf8(bytes) && !bytes.contains('\t') && !bytes.contains('\n')
        && !bytes.startsWith('"');
    QString out = plain ? QString::fromUtf8(head) : u'"' + display(head, maxBytes) + u'"';
    if (bytes.size() > maxBytes)
        out += QStringLiteral("…(%1 bytes)").arg(bytes.size());
    return out;
}

QByteArray parseEscaped(const QString &text, bool *ok)
{
    const QByteArray utf8 = text.toUtf8();
    QByteArray out;
    out.reserve(utf8.size());
    bool good = true;
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8[i];
        if (c != '\\' || i + 1 >= utf8.size()) {
            out += c;
            continue;
        }
        const char next = utf8[++i];
        switch (next) {
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case '\\':
        case '"':
            out += next;
            break;
        case 'x': {
            bool hexOk = false;
            const int value = i + 2 < utf8.size() ? utf8.mid(i + 1, 2).toInt(&hexOk, 16) : 0;
            if (hexOk) {
                out += char(value);
                i += 2;
            } else {
                good = false;
                out += "\\x";
            }
            break;
        }
        default:
            good = false;
            out += '\\';
            out += next;
        }
    }
    if (ok)
        *ok = good;
    return out;
}

} // namespace Bytes
