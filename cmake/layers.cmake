# The layering check (issue 13): src/'s include graph folder to folder, no
# include cycle across folders, no include or link reference to a folder above
# (docs/design.md "Layers as built"). Reads the objects of this build with nm.
if(PASSAGE_TESTS)
  add_test(NAME layers COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/check-layers.py
           --src ${PROJECT_SOURCE_DIR}/src --build ${PROJECT_BINARY_DIR}
           --allow ${PROJECT_SOURCE_DIR}/tools/layers-allow.txt)
  # The check itself can fail: made-up trees with each kind of violation.
  add_test(NAME layers.selftest COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/test_check_layers.py)
endif()
