# CPack: a Debian package with both executables. Included from the top-level CMakeLists.txt.
set(CPACK_PACKAGE_NAME "lockscope")
set(CPACK_PACKAGE_VENDOR "LockScope")
set(CPACK_PACKAGE_CONTACT "LockScope developers <dev@lockscope.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Inspector and simulator for Redis distributed locks")
set(CPACK_PACKAGE_DESCRIPTION "LockScope finds every Redis lock on a live server and shows who owns it, its TTL,
 its waiters and whether it looks stuck; it simulates lock contention with fault injection and an
 honest safety checker; and it teaches each lock algorithm by showing its flaw happen.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "database")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_STRIP_FILES ON)
include(CPack)
