# The run report in a real browser (docs/report.md): PP-OCRv4 det at -O3
# reported and loaded in Debian's headless Chromium (DOM dump checked, a
# screenshot taken); skipped (77) without tests/models/cache.
if(PASSAGE_TESTS)
  add_test(NAME report.chromium COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/report/chromium_report.py
           --passage $<TARGET_FILE:passage_cli> --models ${PROJECT_SOURCE_DIR}/tests/models/cache
           --out ${CMAKE_CURRENT_BINARY_DIR}/report_work)
  set_tests_properties(report.chromium PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1200 SKIP_RETURN_CODE 77)
endif()
