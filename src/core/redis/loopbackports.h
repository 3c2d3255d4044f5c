// Free TCP ports on 127.0.0.1, for the listeners LockScope starts itself: an SSH tunnel's local end, a
// sandbox redis-server, a test's fault proxy.
#pragma once

namespace LoopbackPorts {

// Binds `port` on loopback (0: any) and returns the port bound, or 0 when it is taken. The socket is closed
// again at once: the port was free a moment ago, and whoever asked binds it next.
int bind(int port);
// A TCP port on 127.0.0.1 that was free a moment ago.
int freePort();

} // namespace LoopbackPorts
