# libFuzzer targets (tests/fuzz/, STYLE rule 15.5). The main build may use gcc,
# which has no libFuzzer, so each target is compiled here with clang-14 over
# the library sources (PASSAGE_SOURCES) in one custom command, and run by a
# ctest `fuzz.NAME` for PASSAGE_FUZZ_SECONDS with the fixed PASSAGE_FUZZ_SEED
# over a scratch copy of its corpus (tools/fuzz-run.sh; `make fuzz` runs the
# same targets for longer with random seeds).

# The old in-tree block builds the same targets when the whole build is clang.
# The fuzzers carry their own ASan+UBSan, so the sanitizer configuration of
# `make test` does not build and run them a second time.
if(PASSAGE_FUZZ OR NOT PASSAGE_TESTS OR PASSAGE_SANITIZE OR NOT PASSAGE_CLANG_FUZZERS)
  return()
endif()

find_program(PASSAGE_CLANG14 NAMES clang-14)
if(NOT PASSAGE_CLANG14)
  message(STATUS "clang-14 not found: fuzz targets are not built (install clang-14)")
  add_test(NAME fuzz.skipped COMMAND sh -c "echo 'fuzz tests skipped: clang-14 not found'")
  return()
endif()

# passage_add_clang_fuzzer(NAME SRC CORPUS_DIR [HELPER_SRC...]): builds
# fuzz/fuzz_NAME (from SRC and the helper sources) and registers ctest fuzz.NAME.
function(passage_add_clang_fuzzer name src corpus)
  set(exe ${PROJECT_BINARY_DIR}/fuzz/fuzz_${name})
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/fuzz
    COMMAND ${PASSAGE_CLANG14} -std=c11 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -D_DEFAULT_SOURCE -DPSG_BUILDING_LIBRARY -w
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
            ${src} ${ARGN} ${PASSAGE_SOURCES} -o ${exe} -lm -lpthread
    DEPENDS ${src} ${ARGN} ${PASSAGE_SOURCES}
    COMMENT "Building libFuzzer target fuzz_${name} with clang-14"
    VERBATIM)
  add_custom_target(passage_fuzz_${name} ALL DEPENDS ${exe})
  # -w above: warnings are the gcc build's job (-Werror there); clang's
  # extra ones must not break a test-only build.
  add_test(NAME fuzz.${name} COMMAND ${PROJECT_SOURCE_DIR}/tools/fuzz-run.sh
    ${exe} ${PASSAGE_FUZZ_SECONDS} ${PASSAGE_FUZZ_SEED} ${PROJECT_BINARY_DIR}/fuzz/artifacts ${corpus})
  set_tests_properties(fuzz.${name} PROPERTIES TIMEOUT 900
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
endfunction()

passage_add_clang_fuzzer(parser ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_parser.c
                         ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/parser)
passage_add_clang_fuzzer(pipeline ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_pipeline.c
                         ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/pipeline)
passage_add_clang_fuzzer(tvmscript ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_tvmscript.c
                         ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/tvmscript)
passage_add_clang_fuzzer(interp ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_interp.c
                         ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/interp
                         ${PROJECT_SOURCE_DIR}/tests/fuzz/interp_gen.c)
