# tests/tir_corpus: every TIR pass and tir.default_pipeline over a corpus of
# PrimFuncs (hand-written cases, random loop nests, the real models' lowered
# PrimFuncs; the models skip with a note when tools/fetch-models.sh has not run).
if(PASSAGE_TESTS)
  add_executable(tir_corpus ${PROJECT_SOURCE_DIR}/tests/tir_corpus/tir_corpus.c)
  target_include_directories(tir_corpus PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests/unit)
  target_link_libraries(tir_corpus PRIVATE passage_onnx passage Threads::Threads m)
  add_test(NAME tir.corpus COMMAND tir_corpus ${PROJECT_SOURCE_DIR}/tests/tir_corpus/cases
           ${PROJECT_SOURCE_DIR}/tests/models/cache)
  set_tests_properties(tir.corpus PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
endif()
