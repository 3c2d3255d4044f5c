// How much time and memory one client of `serve`'s HTTP server may take: each bound defends against one way
// of holding an exporter hostage (an endless header, a request sent a byte a minute, connections opened and
// left, a flood of them). The defaults suit a Prometheus scraping every few seconds with a few connections.
#pragma once

#include <QtGlobal>

struct HttpLimits
{
    // The request line and headers together, with their line ends and the blank line that ends them. Prometheus
    // sends about 300 bytes; 16 KiB leaves room for long Authorization headers and proxies' additions.
    static constexpr qsizetype kDefaultMaxHeaderBytes = 16 * 1024;
    // From the first byte of a request (or from the connection, TLS handshake included) to the end of its head.
    static constexpr int kDefaultHeaderTimeoutMs = 10'000;
    // Between two requests on a kept-alive connection; also how long one answer may take to be read.
    static constexpr int kDefaultIdleTimeoutMs = 60'000;
    // Connections open at once; more are answered 503 and closed.
    static constexpr int kDefaultMaxConnections = 64;

    qsizetype maxHeaderBytes = kDefaultMaxHeaderBytes;
    int headerTimeoutMs = kDefaultHeaderTimeoutMs;
    int idleTimeoutMs = kDefaultIdleTimeoutMs;
    int maxConnections = kDefaultMaxConnections;
};
