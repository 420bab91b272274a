# Pass-manager overhead benchmark (issue 3): bench_pass_overhead, and a quick
# ctest run proving it still works (bench/run_pass_overhead.sh --quick).
add_executable(bench_pass_overhead ${PROJECT_SOURCE_DIR}/bench/pass_overhead.c)
target_link_libraries(bench_pass_overhead PRIVATE passage)
if(PASSAGE_TESTS)
  add_test(NAME bench.pass_overhead.quick
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run_pass_overhead.sh --quick ${PROJECT_BINARY_DIR})
  set_tests_properties(bench.pass_overhead.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
endif()
