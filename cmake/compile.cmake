# `passage compile` end to end (issue 17): small Relay modules compiled to a
# shared library and to C, run through tests/compile/model_driver.c against
# the interpreter; the real models against ONNX Runtime (skips without the cache).
if(PASSAGE_TESTS)
  if(PASSAGE_SANITIZE)
    set(_compile_san --sanitize) # the generated code itself under ASan+UBSan
  else()
    set(_compile_san)
  endif()
  add_test(NAME compile.small COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/compile/run_compile_tests.py
           --passage $<TARGET_FILE:passage_cli> ${_compile_san})
  set_tests_properties(compile.small PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
endif()
# The real models (tests/models/cache) compiled and run against ONNX Runtime, each
# plan checked along every path; PP-OCRv4 det is a by-hand run (--all).
if(PASSAGE_TESTS AND TARGET passage_onnx)
  add_test(NAME compile.models COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_compiled.py
           --passage $<TARGET_FILE:passage_cli> --plan-check $<TARGET_FILE:test_memory_plan>)
  set_tests_properties(compile.models PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
endif()
