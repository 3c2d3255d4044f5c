// OwnerEvidence: alphabet and variety tests on bytes. Thresholds are set so that a random token of 16 bytes
// passes with certainty but for about 1 in 20 digit-less base64 draws, and English words and slugs do not.
#include "ownerevidence.h"

#include "locknames.h"

#include <QRegularExpression>
#include <QSet>
#include <QString>

#include <algorithm>
#include <cmath>

namespace OwnerEvidence {

namespace {

bool isLower(char c)
{
    return c >= 'a' && c <= 'z';
}
bool isUpper(char c)
{
    return c >= 'A' && c <= 'Z';
}
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// ^([A-Z][a-z]+)+$: words run together, the way names are written, not a random draw.
bool isCamelWords(const QByteArray &v)
{
    if (v.isEmpty() || !isUpper(v.front()))
        return false;
    for (qsizetype i = 0; i < v.size(); ++i) {
        const char c = v.at(i);
        if (isUpper(c)) {
            if (i + 1 >= v.size() || !isLower(v.at(i + 1)))
                return false;
        } else if (!isLower(c)) {
            return false;
        }
    }
    return true;
}

int distinct(const QByteArray &v)
{
    QSet<char> seen;
    for (char c : v)
        seen.insert(c);
    return int(seen.size());
}

} // namespace

QString randomTokenAlphabet(const QByteArray &raw)
{
    QByteArray v = raw;
    // base64 padding: at most two '=' at the end
    while (v.endsWith('=') && raw.size() - v.size() < 2)
        v.chop(1);
    if (v.size() < 16 || v.size() > 128)
        return {};
    bool lower = false, upper = false, digit = false, plusSlash = false, dashUnderscore = false;
    bool lowerHexOnly = true, upperHexOnly = true, base32Only = true;
    int letters = 0, uppers = 0;
    for (char c : v) {
        if (isLower(c)) {
            lower = true;
            ++letters;
        } else if (isUpper(c)) {
            upper = true;
            ++letters;
            ++uppers;
        } else if (isDigit(c)) {
            digit = true;
        } else if (c == '+' || c == '/') {
            plusSlash = true;
        } else if (c == '-' || c == '_') {
            dashUnderscore = true;
        } else {
            return {};
        }
        lowerHexOnly &= isDigit(c) || (c >= 'a' && c <= 'f');
        upperHexOnly &= isDigit(c) || (c >= 'A' && c <= 'F');
        base32Only &= isUpper(c) || (c >= '2' && c <= '7');
    }
    if (plusSlash && dashUnderscore)
        return {};
    const int n = int(v.size());
    if ((lowerHexOnly || upperHexOnly) && !plusSlash && !dashUnderscore)
        return digit && letters > 0 && distinct(v) >= std::min(8, n / 3) ? QStringLiteral("hex") : QString();
    if (base32Only && !plusSlash && !dashUnderscore)
        return digit && distinct(v) >= std::min(16, n / 2) ? QStringLiteral("base32") : QString();
    // The letter alphabets: both cases, in proportions a random draw gives, and enough distinct characters.
    if (!lower || !upper || isCamelWords(v))
        return {};
    const double upperShare = double(uppers) / letters;
    if (upperShare < 0.2 || upperShare > 0.8 || distinct(v) < std::min(20, n / 2))
        return {};
    if (plusSlash)
        return QStringLiteral("base64");
    if (dashUnderscore)
        return QStringLiteral("base64url");
    return QStringLiteral("letters and digits");
}

bool isRandomBytes(const QByteArray &v)
{
    const qsizetype n = v.size();
    if (n < 16 || n > 64)
        return false;
    // Headers of what small binary values usually are: a pickle (\x80 + protocol), gzip, zlib, zstd, lz4.
    static const QByteArray headers[]
        = {QByteArrayLiteral("\x80\x02"),         QByteArrayLiteral("\x80\x03"),
           QByteArrayLiteral("\x80\x04"),         QByteArrayLiteral("\x80\x05"),
           QByteArrayLiteral("\x1f\x8b"),         QByteArrayLiteral("\x78\x01"),
           QByteArrayLiteral("\x78\x9c"),         QByteArrayLiteral("\x78\xda"),
           QByteArrayLiteral("\x28\xb5\x2f\xfd"), QByteArrayLiteral("\x04\x22\x4d\x18")};
    for (const QByteArray &h : headers) {
        if (v.startsWith(h))
            return false;
    }
    int binary = 0, letterRun = 0, longestLetterRun = 0, zeros = 0;
    for (char ch : v) {
        const auto c = static_cast<unsigned char>(ch);
        binary += c < 0x20 || c > 0x7e ? 1 : 0;
        zeros += c == 0 ? 1 : 0;
        letterRun = isLower(ch) || isUpper(ch) ? letterRun + 1 : 0;
        longestLetterRun = std::max(longestLetterRun, letterRun);
    }
    if (binary * 4 < n || zeros * 8 > n || longestLetterRun >= 5)
        return false;
    // Text in another script is valid UTF-8; random bytes almost never are.
    if (QString::fromUtf8(v).toUtf8() == v)
        return false;
    // Of n random bytes about n(n-1)/512 pairs repeat a byte; serialised data repeats its type bytes and
    // padding far more. Allowed: that many, three standard deviations more, and two.
    const double repeats = double(n) * double(n - 1) / 512.0;
    return double(n - distinct(v)) <= repeats + 3.0 * std::sqrt(repeats) + 2.0;
}

QString describeRandomToken(const QByteArray &value)
{
    if (isRandomBytes(value))
        return QStringLiteral("%1 random bytes (binary, not text; shown as hex)").arg(value.size());
    const QString alphabet = randomTokenAlphabet(value);
    if (alphabet.isEmpty())
        return {};
    qsizetype n = value.size();
    while (n > 0 && value.at(n - 1) == '=')
        --n;
    const double bitsPerChar = alphabet == QLatin1String("hex") ? 4
        : alphabet == QLatin1String("base32")                   ? 5
        : alphabet == QLatin1String("letters and digits")       ? 5.95
                                                                : 6;
    const QString what = alphabet == QLatin1String("letters and digits")
        ? QStringLiteral("letters and digits (base62, or base64 without + and /)")
        : alphabet + QStringLiteral(" characters");
    return QStringLiteral("a random token of %1 %2 (about %3 bytes)")
        .arg(n)
        .arg(what)
        .arg(qint64(double(n) * bitsPerChar / 8.0));
}

bool isSmallInteger(const QByteArray &value)
{
    const QByteArray digits = value.startsWith('-') || value.startsWith('+') ? value.mid(1) : value;
    return !digits.isEmpty() && digits.size() <= 14 && LockNames::isDigits(digits);
}

bool isDecimalNumber(const QByteArray &value)
{
    static const QRegularExpression decimal(
        QStringLiteral("^[+-]?(?:[0-9]+\\.[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$"));
    return value.size() <= 64 && decimal.match(QString::fromLatin1(value)).hasMatch();
}

bool isRandomId(const QByteArray &value)
{
    return LockNames::isUuid(value) || !randomTokenAlphabet(value).isEmpty() || isRandomBytes(value);
}

bool isOwnerLike(const QByteArray &value)
{
    if (value.isEmpty() || isSmallInteger(value) || isDecimalNumber(value))
        return false;
    if (LockNames::isUuid(value.left(36)) || !randomTokenAlphabet(value).isEmpty() || isRandomBytes(value))
        return true;
    bool letter = false, digit = false;
    for (char c : value) {
        letter |= isLower(c) || isUpper(c);
        digit |= isDigit(c);
    }
    return letter && digit;
}

} // namespace OwnerEvidence
