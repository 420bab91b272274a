# The C examples the docs show, built against the public API only and run as
# tests, so the README and docs/writing-a-pass.md cannot drift from the code.
add_executable(example_quickstart ${PROJECT_SOURCE_DIR}/examples/c/quickstart.c)
target_link_libraries(example_quickstart PRIVATE passage)
if(PASSAGE_TESTS)
  add_test(NAME example.quickstart
           COMMAND example_quickstart ${PROJECT_SOURCE_DIR}/examples/models/small_cnn.relay)
  set_tests_properties(example.quickstart PROPERTIES ENVIRONMENT "${SAN_ENV}"
                       PASS_REGULAR_EXPRESSION "def @main")
endif()
