# The commit `gpuvet --version` prints, read from git at configure time. CMake re-runs when HEAD
# or the checked-out branch moves, so the commit follows new commits without a manual
# re-configure. Not a git checkout (a release tarball) or no git: GPUVET_GIT_COMMIT if the
# packager set it, else "unknown".
set(GPUVET_GIT_COMMIT "" CACHE STRING "Commit to report in --version when not built from git")
set(GPUVET_BUILD_COMMIT "${GPUVET_GIT_COMMIT}")
find_package(Git QUIET)
if(GPUVET_BUILD_COMMIT STREQUAL "" AND GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _commit
    RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0)
    set(GPUVET_BUILD_COMMIT "${_commit}")
    # Re-configure when HEAD or the branch it names changes (a worktree's .git is a file, so ask
    # git for the paths).
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --symbolic-full-name HEAD
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _branch
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_name HEAD ${_branch})
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${_name}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _path
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_path AND EXISTS "${_path}")
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_path}")
      endif()
    endforeach()
  endif()
endif()
if(GPUVET_BUILD_COMMIT STREQUAL "")
  set(GPUVET_BUILD_COMMIT "unknown")
endif()
configure_file(${PROJECT_SOURCE_DIR}/src/cli/build_info.cc.in
  ${PROJECT_BINARY_DIR}/generated/build_info.cc @ONLY)
