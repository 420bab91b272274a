# Benchmarks of the text format (issue 2): bench_parse_print and its quick
# ctest; the standard passes (issue 7). FoldConstant's is built in CMakeLists.txt.
add_executable(bench_parse_print ${PROJECT_SOURCE_DIR}/bench/parse_print.c)
target_link_libraries(bench_parse_print PRIVATE passage)
add_executable(bench_tir_parse_print ${PROJECT_SOURCE_DIR}/bench/tir_parse_print.c)
target_link_libraries(bench_tir_parse_print PRIVATE passage)
add_executable(bench_tir_simplify ${PROJECT_SOURCE_DIR}/bench/tir_simplify.c)
target_link_libraries(bench_tir_simplify PRIVATE passage)
add_executable(bench_tir_pipeline ${PROJECT_SOURCE_DIR}/bench/tir_pipeline.c)
target_link_libraries(bench_tir_pipeline PRIVATE passage)
if(PASSAGE_TESTS)
  add_test(NAME bench.parse_print.quick
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run_parse_print.sh --quick ${PROJECT_BINARY_DIR})
  set_tests_properties(bench.parse_print.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
  add_test(NAME bench.tir_parse_print.quick
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run_parse_print.sh --tir --quick ${PROJECT_BINARY_DIR})
  set_tests_properties(bench.tir_parse_print.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
  add_test(NAME bench.tir_simplify.quick
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run_tir_simplify.sh --quick ${PROJECT_BINARY_DIR})
  set_tests_properties(bench.tir_simplify.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
  # tir.default_pipeline's throughput (bench/onnx_lower_bench.py runs 1e4..1e6).
  add_test(NAME bench.tir_pipeline.quick COMMAND bench_tir_pipeline 1000)
  set_tests_properties(bench.tir_pipeline.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "tir.Simplify [0-9.]+ 2.*pipeline_cpu [0-9.]+ 1.statements 1000")
endif()

# The standard passes and -O levels on generated models (issue 7).
add_executable(bench_passes ${PROJECT_SOURCE_DIR}/bench/passes.c)
target_link_libraries(bench_passes PRIVATE passage)
if(PASSAGE_TESTS)
  add_test(NAME bench.passes.quick COMMAND ${PROJECT_SOURCE_DIR}/bench/run_passes.sh --quick ${PROJECT_BINARY_DIR})
  set_tests_properties(bench.passes.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
endif()

# What is alive at each phase of a pipeline, per op call (issue 21).
add_executable(bench_memory ${PROJECT_SOURCE_DIR}/bench/memory_phases.c)
target_link_libraries(bench_memory PRIVATE passage)
if(PASSAGE_TESTS)
  add_test(NAME bench.memory.quick COMMAND bench_memory 1000 O3)
  set_tests_properties(bench.memory.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "InferType +[0-9]+ +[0-9]+.*FuseOps +[0-9]+ +[0-9]+.*  O3 +[0-9]+ +[0-9]+.*output released")
endif()
