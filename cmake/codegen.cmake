# CodeGenC (issue 17): the generated kernels of the TIR corpus and of the 8
# lowered real models, built with the system C compiler(s) and compared with
# the TIR interpreter (tests/codegen/test_codegen_corpus.c). In the sanitizer
# build the generated code is compiled with -fsanitize=address,undefined.
if(PASSAGE_TESTS AND NOT PASSAGE_TSAN)
  add_executable(test_codegen_corpus ${PROJECT_SOURCE_DIR}/tests/codegen/test_codegen_corpus.c)
  target_include_directories(test_codegen_corpus PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests/unit)
  target_link_libraries(test_codegen_corpus PRIVATE passage_onnx passage Threads::Threads m ${CMAKE_DL_LIBS})
  set(CODEGEN_TEST_FLAGS "")
  if(PASSAGE_SANITIZE)
    set(CODEGEN_TEST_FLAGS "--sanitize")
  endif()
  add_test(NAME codegen.corpus COMMAND test_codegen_corpus ${PROJECT_SOURCE_DIR}/tests/tir_corpus/cases
           ${PROJECT_SOURCE_DIR}/tests/models/cache ${CMAKE_CURRENT_BINARY_DIR}/codegen_work ${CODEGEN_TEST_FLAGS})
  set_tests_properties(codegen.corpus PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
endif()
