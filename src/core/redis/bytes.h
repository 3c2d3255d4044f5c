// Showing arbitrary Redis bytes (keys, values) to people: UTF-8 when it is, escaped like redis-cli when not.
#pragma once

#include <QByteArray>
#include <QString>

namespace Bytes {

// True when `bytes` is valid UTF-8 without control characters other than tab/newline.
bool isPrintableUtf8(const QByteArray &bytes);
// Text for display: valid UTF-8 is kept, other bytes become \xNN, quotes and backslashes are escaped;
// longer input is cut at `maxBytes` and marked with its full length.
QString display(const QByteArray &bytes, int maxBytes = 200);
// A key or name as a person copies it: verbatim when it is printable UTF-8 (quotes and backslashes
// included); in double quotes and escaped as display() does when it is not, or when it begins with a quote.
// Longer input is cut at `maxBytes` and marked with its full length, outside the quotes.
QString displayName(const QByteArray &bytes, int maxBytes = 200);
// Inverse of display() for keys typed by a user: understands \xNN, \n, \r, \t, \\ and \".
QByteArray parseEscaped(const QString &text, bool *ok = nullptr);

} // namespace Bytes
