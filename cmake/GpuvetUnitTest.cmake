# gpuvet_unit_test(NAME SOURCES … LIBS …): one GoogleTest executable of a folder's *_test.cc files,
# declared in that folder's CMakeLists.txt beside the library it tests. A no-op when
# GPUVET_BUILD_TESTS is off, so folders need no guard. The fakes and fixtures it names live under
# tests/ (added after src/; target names resolve at generate time).
function(gpuvet_unit_test name)
  if(NOT GPUVET_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    GPUVET_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    GPUVET_SHARED_DATA_DIR="${PROJECT_SOURCE_DIR}/../shared/data"
    GPUVET_FAKE_NVML_LIB="$<TARGET_FILE:fake_nvml>"
    GPUVET_FAKE_CUDA_LIB="$<TARGET_FILE:fake_cuda>")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 30
    PROPERTIES ENVIRONMENT "GPUVET_TEST_TMPDIR=${PROJECT_BINARY_DIR}/tests/tmp")
endfunction()

# gpuvet_test_depends(NAME TARGET…): NAME loads or runs TARGET (a fake library, a workload) at run
# time, so it must be built first.
function(gpuvet_test_depends name)
  if(GPUVET_BUILD_TESTS)
    add_dependencies(${name} ${ARGN})
  endif()
endfunction()
