// LockNames: the inverse of Redisson's prefixName/suffixName naming rules, and Redis' glob.
#include "locknames.h"

#include <QtGlobal>

#include <cctype>
#include <cstring> // memmem (glibc), much faster than std::string_view::find here
#include <string_view>
#include <utility>

namespace LockNames {

namespace {

constexpr char kQueuePrefix[] = "redisson_lock_queue";
constexpr char kDeadlinesPrefix[] = "redisson_lock_timeout";
constexpr char kTokenPrefix[] = "redisson_lock_token";
constexpr char kLatchPrefix[] = "redisson_unlock_latch";
constexpr char kReadTimeoutMarker[] = ":rwlock_timeout:";

// "{X}" → "X" when X has no braces; anything else is kept.
QByteArray unwrapBraces(const QByteArray &text)
{
    if (text.size() >= 3 && text.startsWith('{') && text.endsWith('}')) {
        const QByteArray inner = text.mid(1, text.size() - 2);
        if (!inner.contains('{') && !inner.contains('}'))
            return inner;
    }
    return text;
}

// Lower-cases ASCII only, like Redis' nocase glob.
char fold(char c, bool caseInsensitive)
{
    return caseInsensitive && c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// Iterative glob with backtracking on the last '*', so a hostile pattern cannot recurse deeply.
bool match(const char *p, qsizetype pn, const char *s, qsizetype sn, bool nocase)
{
    qsizetype pi = 0, si = 0;
    qsizetype starP = -1, starS = 0;
    while (si < sn) {
        if (pi < pn) {
            const char pc = p[pi];
            if (pc == '*') {
                while (pi < pn && p[pi] == '*')
                    ++pi;
                if (pi == pn)
                    return true;
                starP = pi;
                starS = si;
                continue;
            }
            if (pc == '?') {
                ++pi;
                ++si;
                continue;
            }
            if (pc == '[') {
                qsizetype q = pi + 1;
                bool negate = false;
                if (q < pn && p[q] == '^') {
                    negate = true;
                    ++q;
                }
                bool matched = false;
                const char sc = fold(s[si], nocase);
                while (q < pn && p[q] != ']') {
                    if (p[q] == '\\' && q + 1 < pn) {
                        ++q;
                        matched |= fold(p[q], nocase) == sc;
                        ++q;
                    } else if (q + 2 < pn && p[q + 1] == '-' && p[q + 2] != ']') {
                        char lo = fold(p[q], nocase), hi = fold(p[q + 2], nocase);
                        if (lo > hi)
                            std::swap(lo, hi);
                        matched |= sc >= lo && sc <= hi;
                        q += 3;
                    } else {
                        matched |= fold(p[q], nocase) == sc;
                        ++q;
                    }
                }
                if (negate)
                    matched = !matched;
                if (matched) {
                    pi = q < pn ? q + 1 : q; // past ']' (an unterminated class ends the pattern, as in Redis)
                    ++si;
                    continue;
                }
            } else {
                char literal = pc;
                qsizetype advance = 1;
                if (pc == '\\' && pi + 1 < pn) {
                    literal = p[pi + 1];
                    advance = 2;
                }
                if (fold(literal, nocase) == fold(s[si], nocase)) {
                    pi += advance;
                    ++si;
                    continue;
                }
            }
        }
        if (starP < 0)
            return false;
        pi = starP;
        si = ++starS;
    }
    while (pi < pn && p[pi] == '*')
        ++pi;
    return pi == pn;
}

} // namespace

Companion companionOf(const QByteArray &key)
{
    Companion c;
    // Called for every scanned key: rule out the common case without building any string.
    const bool redissonPrefix = key.startsWith("redisson_");
    if (!redissonPrefix && !key.contains(kReadTimeoutMarker))
        return c;
    const auto afterPrefix = [&](QByteArrayView prefix) -> QByteArray {
        if (key.size() > prefix.size() + 1 && key.startsWith(prefix) && key.at(prefix.size()) == ':')
            return key.mid(prefix.size() + 1);
        return {};
    };
    if (redissonPrefix) {
        struct
        {
            const char *prefix;
            CompanionRole role;
        } const simple[] = {
            {kQueuePrefix, CompanionRole::Queue},
            {kDeadlinesPrefix, CompanionRole::Deadlines},
            {kTokenPrefix, CompanionRole::Token},
        };
        for (const auto &s : simple) {
            const QByteArray rest = afterPrefix(s.prefix);
            if (!rest.isEmpty()) {
                c.role = s.role;
                c.lockName = unwrapBraces(rest);
                return c;
            }
        }
        const QByteArray latch = afterPrefix(kLatchPrefix);
        if (!latch.isEmpty()) {
            // redisson_unlock_latch:{N}:<request id>
            const qsizetype colon = latch.lastIndexOf(':');
            if (colon > 0) {
                c.role = CompanionRole::UnlockLatch;
                c.lockName = unwrapBraces(latch.left(colon));
            }
            return c;
        }
    }
    // {N}:<uuid>:<tid>:rwlock_timeout:<k>
    const qsizetype marker = key.lastIndexOf(kReadTimeoutMarker);
    if (marker > 0 && isDigits(key.mid(marker + qsizetype(sizeof kReadTimeoutMarker) - 1))) {
        const QByteArray head = key.left(marker); // {N}:<uuid>:<tid>
        const qsizetype tidColon = head.lastIndexOf(':');
        if (tidColon <= 0 || !isDigits(head.mid(tidColon + 1)))
            return c;
        const qsizetype uuidColon = head.lastIndexOf(':', tidColon - 1);
        if (uuidColon <= 0 || !isUuid(head.mid(uuidColon + 1, tidColon - uuidColon - 1)))
            return c;
        c.role = CompanionRole::ReadTimeout;
        c.lockName = unwrapBraces(head.left(uuidColon));
        c.owner = head.mid(uuidColon + 1);
    }
    return c;
}

bool globMatch(const QByteArray &pattern, const QByteArray &text, bool caseInsensitive)
{
    // "*word*", the shape of every default lock-name pattern, is a plain substring search: a scan of all keys
    // tests each key against each pattern, and the general matcher's backtracking was most of that time.
    if (!caseInsensitive && pattern.size() >= 2 && pattern.front() == '*' && pattern.back() == '*') {
        const std::string_view word(pattern.constData() + 1, size_t(pattern.size() - 2));
        if (word.find_first_of("*?[]\\") == std::string_view::npos)
            return word.empty() || ::memmem(text.constData(), size_t(text.size()), word.data(), word.size());
    }
    return match(pattern.constData(), pattern.size(), text.constData(), text.size(), caseInsensitive);
}

bool matchesAny(const QList<QByteArray> &patterns, const QByteArray &text)
{
    for (const QByteArray &p : patterns) {
        if (globMatch(p, text))
            return true;
    }
    return false;
}

bool hasNamePart(const QByteArray &key, const QByteArray &word)
{
    const qsizetype n = key.size(), w = word.size();
    if (w == 0 || n < w)
        return false;
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    const auto isLetter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const auto isUpper = [](char c) { return c >= 'A' && c <= 'Z'; };
    qsizetype i = 0;
    while (i < n) {
        if (!isLetter(key[i])) {
            ++i;
            continue;
        }
        // One part: letters up to a non-letter, or up to a lower→upper step (camelCase), or inside a run of
        // capitals up to the capital that starts the next word ("HTTPLock" → HTTP, Lock).
        const qsizetype start = i++;
        while (i < n && isLetter(key[i])) {
            const char prev = key[i - 1], c = key[i];
            if (!isUpper(prev) && isUpper(c))
                break;
            if (isUpper(prev) && isUpper(c) && i + 1 < n && isLetter(key[i + 1]) && !isUpper(key[i + 1]))
                break;
            ++i;
        }
        if (i - start == w) {
            bool same = true;
            for (qsizetype k = 0; k < w && same; ++k)
                same = lower(key[start + k]) == lower(word[k]);
            if (same)
                return true;
        }
    }
    return false;
}

bool isNameWord(const QByteArray &entry)
{
    if (entry.isEmpty())
        return false;
    for (char c : entry) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

bool matchesLockName(const QList<QByteArray> &entries, const QByteArray &key)
{
    for (const QByteArray &e : entries) {
        if (isNameWord(e) ? hasNamePart(key, e) : globMatch(e, key))
            return true;
    }
    return false;
}

bool isUuid(const QByteArray &text)
{
    if (text.size() != 36)
        return false;
    for (int i = 0; i < 36; ++i) {
        const char c = text.at(i);
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c)))
            return false;
    }
    return true;
}

bool isDigits(const QByteArray &text)
{
    if (text.isEmpty() || text.size() > 20)
        return false;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

} // namespace LockNames
