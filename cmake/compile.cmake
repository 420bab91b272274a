# `passage compile` end to end (issue 17): small Relay modules compiled to a
# shared library and to C, run through tests/compile/model_driver.c against
# the interpreter; the real models against ONNX Runtime (skips without the cache).
if(PASSAGE_TESTS)
  add_test(NAME compile.small COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/compile/run_compile_tests.py
           --passage $<TARGET_FILE:passage_cli>)
  set_tests_properties(compile.small PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
endif()
