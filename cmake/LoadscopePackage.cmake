# What `cmake --install` puts beside the programs, and the Debian package
# CPack makes of it (`cpack --preset package`, scripts/package.sh).
#
#   bin/                        loadscope, loadscope-cli (app/gui, app/cli)
#   share/applications, icons/hicolor, mime/packages, metainfo   the window's desktop files
#   share/man/man1              loadscope(1), loadscope-cli(1), made from their --help (app/cli)
#   share/loadscope/sessions    the example sessions (app/session; the programs carry them too)
#   share/doc/loadscope         copyright, changelog.gz

set(LOADSCOPE_PACKAGE_CONTACT "Loadscope maintainers <maintainers@loadscope.invalid>"
  CACHE STRING "Maintainer of the Debian package, 'Name <address>'")

# Debian wants the package's changelog gzip -9n'd beside its copyright.
string(TIMESTAMP LOADSCOPE_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(package_doc ${PROJECT_BINARY_DIR}/package-doc)
configure_file(${CMAKE_CURRENT_LIST_DIR}/package/changelog.in ${package_doc}/changelog @ONLY)
add_custom_command(OUTPUT ${package_doc}/changelog.gz
  COMMAND ${LOADSCOPE_GZIP} -9 -n -k -f ${package_doc}/changelog
  DEPENDS ${package_doc}/changelog
  VERBATIM)
add_custom_target(loadscope_package_doc ALL DEPENDS ${package_doc}/changelog.gz)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/package/copyright ${package_doc}/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/loadscope)

set(CPACK_PACKAGE_NAME loadscope)
set(CPACK_PACKAGE_VENDOR "Loadscope")
set(CPACK_PACKAGE_CONTACT "${LOADSCOPE_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "workbench for benchmarking network servers across deployment modes")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # loadscope_VERSION_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
# The libraries the programs link, as dpkg-shlibdeps finds them; by hand only
# what no library says: `ip`, without which the lab builds no mode.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "iproute2")
# The lab's NAT modes, unprivileged sandboxes and the servers it runs; then the
# modes and servers fewer sessions use.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nftables, uidmap, nginx-light | nginx, memcached")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "apache2, openvswitch-switch, ethtool, slirp4netns, docker.io")
# CPack puts the summary above it and indents it as a control file wants.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Loadscope measures what a deployment choice costs a network server: the
same nginx, Apache, memcached or custom service on the bare host, in a
container on the host network, behind NAT port mapping, a Linux or OVS
bridge, macvlan or a userland proxy. A sweep of concurrency levels with
repetitions gives requests per second, transfer rate and latency
percentiles side by side, with 95 % intervals and a verdict on each
difference.

The deployment lab builds the modes itself in network namespaces of its
own. loadscope-cli runs sweeps headless and speaks the options of ab,
memtier_benchmark and netperf.")
include(CPack)
