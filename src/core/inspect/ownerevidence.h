// What a value says about a holder, judged from the value alone: a random token (by its alphabet, length and
// randomness, whatever library made it), a uuid, a host:pid, or nothing a holder would write (a counter, a
// word). The generic formats and the classifier rest their judgement on it, never on a lock word in a name.
#pragma once

#include <QByteArray>
#include <QString>

namespace OwnerEvidence {

// The encoding of a random token: "hex", "base32", "base64", "base64url", "letters and digits" (base62, or
// base64 that happened to draw neither + nor /), or empty when `value` is no random token. A random token
// is 16 to 128 characters of one of those alphabets with the variety chance gives: hex with several distinct
// digits; the letter alphabets with upper and lower case mixed as random draws mix them (not CamelCase
// words). Whether a digit happened to appear does not matter.
QString randomTokenAlphabet(const QByteArray &value);
// True when `value` is 16 to 64 raw random bytes (not text): what a library that never encodes its token
// stores (rueidislock's 24 bytes of util.RandomBytes). Judged by what chance gives and serialised data does
// not: bytes outside printable ASCII, almost no byte repeated, no run of letters (a pickle, msgpack or a
// protobuf carries its field names and strings), and no header of a compressed or serialised format.
bool isRandomBytes(const QByteArray &value);
// "a random token of 22 base64url characters (about 16 bytes)", "24 random bytes (binary, shown as hex)", or
// empty when `value` is no random token.
QString describeRandomToken(const QByteArray &value);
// True when `value` is something a holder writes to say who it is: a random token, a uuid (with or without a
// suffix), or a token mixing letters and digits (a host:pid, worker-7, a host name with a number). A small
// integer, a word or a flag is not.
bool isOwnerLike(const QByteArray &value);
// A random token (randomTokenAlphabet, or raw random bytes) or a uuid: what one holder writes to every key
// of a multi-resource lock, and nothing else is likely to share by chance.
bool isRandomId(const QByteArray &value);
// True for an optionally signed integer of 1 to 14 digits: a counter, a count or a flag, never an owner
// (15 to 20 digits are snowflake ids, which generic-lock formats read as owners).
bool isSmallInteger(const QByteArray &value);
// True for an optionally signed decimal number with a fraction (313335151.34025902, -0.5, 1.5e3): a rate
// limiter's arrival time, a score, a measurement. A holder never writes one as its token.
bool isDecimalNumber(const QByteArray &value);

} // namespace OwnerEvidence
