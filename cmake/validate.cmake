# Validate-each over the real models (issue 20 item 1, docs/pass-infra.md
# "Validate each"): each model through `-O3` and `-O3 --lower` with every
# changed pass validated on the interpreters (tests/models/run_validate.py;
# skipped without tests/models/cache). The sanitizer build runs the smaller
# shapes (--small); the interpreters are several times slower there.
if(PASSAGE_TESTS)
  if(PASSAGE_SANITIZE)
    set(_validate_flags --small)
  else()
    set(_validate_flags)
  endif()
  add_test(NAME models.validate_each COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_validate.py
           --passage $<TARGET_FILE:passage_cli> ${_validate_flags})
  set_tests_properties(models.validate_each PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 3600)
endif()
