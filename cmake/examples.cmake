# The C examples the docs show, built against the public API only and run as
# tests, so the README and docs/writing-a-pass.md cannot drift from the code.
add_executable(example_quickstart ${PROJECT_SOURCE_DIR}/examples/c/quickstart.c)
target_link_libraries(example_quickstart PRIVATE passage)
# The same against libpassage.a: a static link must bring in every op family
# and standard pass (nothing reached only through the registry may be lost).
add_executable(example_quickstart_static ${PROJECT_SOURCE_DIR}/examples/c/quickstart.c)
target_link_libraries(example_quickstart_static PRIVATE passage_static)
if(PASSAGE_TESTS)
  add_test(NAME example.quickstart
           COMMAND example_quickstart ${PROJECT_SOURCE_DIR}/examples/models/small_cnn.relay)
  set_tests_properties(example.quickstart PROPERTIES ENVIRONMENT "${SAN_ENV}"
                       PASS_REGULAR_EXPRESSION "def @main")
  add_test(NAME example.quickstart_static
           COMMAND example_quickstart_static ${PROJECT_SOURCE_DIR}/examples/models/small_cnn.relay)
  set_tests_properties(example.quickstart_static PROPERTIES ENVIRONMENT "${SAN_ENV}"
                       PASS_REGULAR_EXPRESSION "def @main")
endif()

# An out-of-tree user of the installed library, through find_package(passage)
# and through pkg-config. Not in the sanitizer configuration: an instrumented
# library cannot be linked by an uninstrumented program.
if(PASSAGE_TESTS AND NOT PASSAGE_SANITIZE)
  add_test(NAME example.installed
           COMMAND ${PROJECT_SOURCE_DIR}/tests/install/run.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(example.installed PROPERTIES TIMEOUT 300)
endif()

# Only PSG_API symbols leave the shared libraries (STYLE rule 2): every
# exported name starts with psg_.
if(PASSAGE_TESTS)
  set(exported_libs $<TARGET_FILE:passage>)
  if(TARGET passage_onnx)
    list(APPEND exported_libs $<TARGET_FILE:passage_onnx>)
  endif()
  add_test(NAME abi.exports COMMAND sh -c
    "bad=$(for l in \"$@\"; do nm -D --defined-only \"$l\" | awk '{print $3}' | grep -v '^psg_'; done); \
     if [ -n \"$bad\" ]; then echo \"exported without the psg_ prefix:\"; echo \"$bad\"; exit 1; fi" sh ${exported_libs})
endif()
