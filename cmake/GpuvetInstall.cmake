# `cmake --install` and CPack: the binary, the man page, bash/zsh completions, the deploy assets
# and the systemd units in their FHS places (docs/deploy.md has the table). The units name the
# binary by its installed path, rewritten at install time, so `--prefix` and the .deb's /usr both
# come out right. `cpack -G DEB` builds gpuvet_<version>_<arch>.deb (dpkg-shlibdeps fills Depends).
include(GNUInstallDirs)
# `install`/cpack do not rebuild the whole tree (tests included) first: they install what is
# built, and the package holds only the gpuvet binary. Build it first (`cmake --build B --target
# gpuvet`); installing an unbuilt binary fails with its path.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

install(TARGETS gpuvet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

configure_file(${PROJECT_SOURCE_DIR}/docs/man/gpuvet.1 ${PROJECT_BINARY_DIR}/man/gpuvet.1 @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/man/gpuvet.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES deploy/completions/gpuvet.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpuvet)
install(FILES deploy/completions/_gpuvet DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# Deploy assets as shipped, for users to copy into Prometheus, Grafana, Kubernetes and NPD.
install(DIRECTORY deploy/prometheus deploy/grafana deploy/kubernetes deploy/node-problem-detector
  DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuvet/deploy)
# The Slurm HealthCheckProgram where slurm.conf's example points (sbin), executable.
install(PROGRAMS deploy/slurm/gpuvet-healthcheck.sh DESTINATION ${CMAKE_INSTALL_SBINDIR}
  RENAME gpuvet-healthcheck)
install(PROGRAMS deploy/node-problem-detector/gpuvet-npd-check.sh
  DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gpuvet)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# systemd units: /usr/local/bin/gpuvet in the repository's copies becomes the installed binary.
# Evaluated at install time, where CMAKE_INSTALL_PREFIX is the one `--prefix` or CPack gives.
foreach(unit gpuvet-exporter.service gpuvet-check.service gpuvet-check.timer)
  install(CODE "
    file(READ \"${PROJECT_SOURCE_DIR}/deploy/systemd/${unit}\" text)
    string(REPLACE \"/usr/local/bin/gpuvet\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/gpuvet\" text \"\${text}\")
    set(dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
    file(MAKE_DIRECTORY \"\${dest}\")
    file(WRITE \"\${dest}/${unit}\" \"\${text}\")
    message(STATUS \"Installing: \${dest}/${unit}\")
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${dest}/${unit}\")")
endforeach()

set(CPACK_PACKAGE_NAME gpuvet)
set(CPACK_PACKAGE_VENDOR "gpuvet")
set(CPACK_PACKAGE_CONTACT "gpuvet maintainers <gpuvet@example.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tells GPU operators why their GPUs are slow or sick, and what to do")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# NVML and the CUDA driver are dlopen()ed: recommended, never required (check works without).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libnvidia-ml1 | nvidia-driver")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, prometheus-node-exporter")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/gpuvet/gpuvet")
# Only the gpuvet component-less install: tests and the fakes are never installed.
include(CPack)
