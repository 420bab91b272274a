# The hostile-input corpus (issue 14): every tests/bad/<area>/cases.txt run
# against the CLI with a per-case time and memory cap (tests/bad/run_bad.py,
# docs/testing.md). Under ASan+UBSan the address-space cap is off (ASan
# reserves terabytes of shadow memory) and the time limit is 10x (20 s).
if(PASSAGE_TESTS)
  if(PASSAGE_SANITIZE)
    set(BAD_FLAGS --sanitized)
  else()
    set(BAD_FLAGS)
  endif()
  add_test(NAME bad COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/bad/run_bad.py
           --passage $<TARGET_FILE:passage_cli> ${BAD_FLAGS})
  set_tests_properties(bad PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 900)
  # The runner must fail on each kind of broken case (it cannot pass vacuously).
  add_test(NAME bad.selftest COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/bad/selftest_run_bad.py)
  set_tests_properties(bad.selftest PROPERTIES TIMEOUT 120)
endif()
