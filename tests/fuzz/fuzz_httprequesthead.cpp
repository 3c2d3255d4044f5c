// libFuzzer target: bytes from any client of `serve` → HttpRequestHead. The first byte picks the limit
// (64–1084 bytes), the second where the bytes are split in two; read whole or split, the head must come out
// the same (state, bytes taken, method, headers), never take more than the limit, and take everything while
// it still needs more.
#include "httprequesthead.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const qsizetype limit = 64 + qsizetype(data[0]) * 4;
    const char *text = reinterpret_cast<const char *>(data + 2);
    const qsizetype n = qsizetype(size - 2);
    const qsizetype cut = n > 0 ? qsizetype(data[1]) % n : 0;
    HttpRequestHead whole(limit);
    const qsizetype usedWhole = whole.feed(text, n);
    HttpRequestHead split(limit);
    qsizetype used = split.feed(text, cut);
    used += split.feed(text + used, n - used);
    if (usedWhole > n || used != usedWhole || whole.state() != split.state()
        || whole.bytesRead() != split.bytesRead() || whole.bytesRead() > limit + 1)
        __builtin_trap();
    if (whole.state() == HttpRequestHead::State::NeedMore && usedWhole != n)
        __builtin_trap();
    if (whole.state() == HttpRequestHead::State::Complete) {
        if (whole.bytesRead() > limit || whole.method() != split.method() || whole.target() != split.target()
            || whole.headers() != split.headers())
            __builtin_trap();
        (void)whole.keepAlive();
        (void)whole.announcesBody();
    }
    return 0;
}
