# Function and prim-func passes on threads against the serial run (issue 19
# item 6, docs/pass-infra.md "Threads"): the generated 256-function module and
# every real model's lowered module (skipped without tests/models/cache), 2
# runs each way here; 20 by hand (tests/models/run_threads.py --runs 20).
# Under the sanitizers the generated module and ppocr cls only (det alone
# takes minutes there).
if(PASSAGE_TESTS)
  if(PASSAGE_SANITIZE)
    set(_threads_models --only cls)
  else()
    set(_threads_models)
  endif()
  add_test(NAME threads.determinism COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_threads.py
           --passage $<TARGET_FILE:passage_cli> --runs 2 ${_threads_models})
  set_tests_properties(threads.determinism PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
endif()
# The 2-core speedup (docs/pass-infra.md "Threads"): bench_parallel_passes
# MODEL RUNS THREADS, by hand.
if(TARGET passage_onnx)
  add_executable(bench_parallel_passes ${PROJECT_SOURCE_DIR}/bench/parallel_passes.c)
  target_link_libraries(bench_parallel_passes PRIVATE passage_onnx passage)
endif()
