# passage reduce on a real model (issue 20 item 3, docs/pass-infra.md
# "Reducing a failing case"): PP-OCRv4 det plus the seeded bug
# testing.FailOnResizeAdd reduces to at most 10 calls, deterministically.
# Skipped (passes, saying so) without tests/models/cache; needs the ONNX
# importer (passage_onnx).
if(PASSAGE_TESTS AND TARGET passage_onnx AND EXISTS /usr/bin/python3)
  add_test(NAME models.reduce_det COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_reduce.py
           --passage $<TARGET_FILE:passage_cli>)
  set_tests_properties(models.reduce_det PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1200)
endif()
