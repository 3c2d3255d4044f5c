# CPack: a Debian package with both executables and their desktop integration (packaging/CMakeLists.txt).
# Included from the top-level CMakeLists.txt. Build it with `cpack -G DEB` in a build tree, or scripts/package-check.
set(CPACK_PACKAGE_NAME "lockscope")
set(CPACK_PACKAGE_VENDOR "LockScope")
set(CPACK_PACKAGE_CONTACT "LockScope developers <dev@lockscope.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Inspector and simulator for Redis distributed locks")
set(CPACK_PACKAGE_DESCRIPTION "LockScope finds every Redis lock on a live server and shows who owns it, its TTL, \
its waiters and whether it looks stuck; it simulates lock contention with fault injection and an honest safety \
checker; and it teaches each lock algorithm by showing its flaw happen. Connections are read-only by default, \
over TLS and SSH tunnels, with saved profiles whose passwords stay in the system keychain.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "database")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# Library dependencies (Qt 6, hiredis, QtKeychain, OpenSSL) come from dpkg-shlibdeps on the binaries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded as plugins at run time, invisible to shlibdeps: the SVG icon engine (the window and place icons).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6svg6")
# redis-server: the private sandbox servers; openssh-client: SSH tunnels; libsecret: QtKeychain's route to the
# desktop keychain (it loads it at run time, so shlibdeps cannot see it).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server, openssh-client, libsecret-1-0")
# A JDK and Maven build the Redisson and Jedis client adapters on first use (the Simulator's real-library workers).
# Prometheus evaluates serve's alert rules (/usr/share/lockscope/monitoring). python3-redis runs the redis-py
# adapter and `lockscope-cli clients check`.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "gnome-keyring | kwalletmanager, redis-tools, default-jdk-headless, maven, prometheus, python3-redis")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# /etc/lockscope/serve.json is the administrator's: an upgrade keeps their edits (dpkg asks before replacing).
file(WRITE "${CMAKE_BINARY_DIR}/debian-control/conffiles" "/etc/lockscope/serve.json\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_BINARY_DIR}/debian-control/conffiles")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_STRIP_FILES ON)
include(CPack)
