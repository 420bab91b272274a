# The ONNX frontend (issue 6): libpassage_onnx, a shared library over the public
# API of libpassage plus protobuf-c, with C generated from Debian's onnx.proto
# at build time; the CLI links it for `.onnx` input and output; its tests.
find_program(PROTOC_C NAMES protoc-c)
find_path(ONNX_PROTO_DIR onnx.proto PATHS /usr/include/onnx NO_DEFAULT_PATH)
find_library(PROTOBUF_C_LIB NAMES protobuf-c)
find_path(PROTOBUF_C_INCLUDE protobuf-c/protobuf-c.h)
if(NOT PROTOC_C OR NOT ONNX_PROTO_DIR OR NOT PROTOBUF_C_LIB OR NOT PROTOBUF_C_INCLUDE)
  message(FATAL_ERROR "ONNX frontend: needs protoc-c, libprotobuf-c and onnx.proto "
                      "(Debian: protobuf-c-compiler libprotobuf-c-dev libonnx-dev)")
endif()

set(ONNX_GEN_DIR ${PROJECT_BINARY_DIR}/onnx_gen)
add_custom_command(
  OUTPUT ${ONNX_GEN_DIR}/onnx.pb-c.c ${ONNX_GEN_DIR}/onnx.pb-c.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ONNX_GEN_DIR}
  COMMAND ${PROTOC_C} --proto_path=${ONNX_PROTO_DIR} --c_out=${ONNX_GEN_DIR} ${ONNX_PROTO_DIR}/onnx.proto
  DEPENDS ${ONNX_PROTO_DIR}/onnx.proto
  COMMENT "protoc-c: generating the ONNX protobuf decoder")

# Generated code is not ours to keep warning-free under -Werror.
add_library(passage_onnx_proto OBJECT ${ONNX_GEN_DIR}/onnx.pb-c.c)
set_target_properties(passage_onnx_proto PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_compile_options(passage_onnx_proto PRIVATE -w)
target_include_directories(passage_onnx_proto PUBLIC ${ONNX_GEN_DIR} ${PROTOBUF_C_INCLUDE})

file(GLOB PASSAGE_ONNX_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/onnx/*.c)
# The house containers (vectors, maps, string builder, arena) are compiled into
# the frontend too, over src/onnx/onnx_alloc.c's psgi_alloc & co., which take
# every byte from the context's allocator through the public API. Where the
# frontend is linked with the core's objects (fuzz_onnx), the core's own
# support files serve it instead.
set(PASSAGE_ONNX_SUPPORT ${PROJECT_SOURCE_DIR}/src/support/hashmap.c ${PROJECT_SOURCE_DIR}/src/support/buf.c
    ${PROJECT_SOURCE_DIR}/src/support/arena.c ${PROJECT_SOURCE_DIR}/src/support/alloc_helpers.c)
set(PASSAGE_ONNX_CORE_SOURCES ${PASSAGE_ONNX_SOURCES})
list(FILTER PASSAGE_ONNX_CORE_SOURCES EXCLUDE REGEX "/src/onnx/onnx_alloc\\.c$")
add_library(passage_onnx SHARED ${PASSAGE_ONNX_SOURCES} ${PASSAGE_ONNX_SUPPORT} $<TARGET_OBJECTS:passage_onnx_proto>)
set_target_properties(passage_onnx PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                      C_VISIBILITY_PRESET hidden)
target_compile_definitions(passage_onnx PRIVATE PSG_BUILDING_LIBRARY)
# Public headers plus src/support's (STYLE rule 1: the frontend is a client of
# libpassage; the support containers are its own copies, see above).
target_include_directories(passage_onnx PRIVATE ${ONNX_GEN_DIR} ${PROTOBUF_C_INCLUDE} ${PROJECT_SOURCE_DIR}/src)
target_include_directories(passage_onnx PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(passage_onnx PUBLIC passage PRIVATE ${PROTOBUF_C_LIB} m)
install(TARGETS passage_onnx LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

target_link_libraries(passage_cli PRIVATE passage_onnx)

if(PASSAGE_TESTS)
  file(GLOB ONNX_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/onnx/test_*.c)
  foreach(src ${ONNX_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE passage_onnx passage)
    add_test(NAME onnx.${name} COMMAND ${name} ${PROJECT_SOURCE_DIR}/tests/onnx/data)
    set_tests_properties(onnx.${name} PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 300)
  endforeach()
  # Allocation-failure injection over import and export of the real models
  # (and import of a sample of the backend node tests): every failure point
  # is NOMEM, nothing leaks, nothing crashes. Skips models not fetched.
  add_executable(oom_onnx_models ${PROJECT_SOURCE_DIR}/tests/onnx/oom_onnx_models.c)
  target_link_libraries(oom_onnx_models PRIVATE passage_onnx passage)
  add_test(NAME onnx.oom_models COMMAND oom_onnx_models ${PROJECT_SOURCE_DIR}/tests/models/cache
           /usr/share/libonnx-testdata/data/node)
  set_tests_properties(onnx.oom_models PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600 LABELS "oom")
  if(EXISTS /usr/share/libonnx-testdata/data/node AND EXISTS /usr/bin/python3)
    add_test(NAME onnx.backend COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_backend_tests.py
             --passage $<TARGET_FILE:passage_cli>
             --known-failures ${PROJECT_SOURCE_DIR}/tests/onnx/known_failures.txt)
    set_tests_properties(onnx.backend PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
    # The same node tests compiled (issue 17): passage compile --emit-c, cc in batches
    # (-Wall -Wextra -Werror), run through tests/compile/model_driver.c against the
    # expected outputs at the project tolerance; prints compiled / supported / total.
    add_test(NAME onnx.backend_compiled COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_compiled_node_tests.py
             --passage $<TARGET_FILE:passage_cli> --sanitize=$<BOOL:${PASSAGE_SANITIZE}>)
    set_tests_properties(onnx.backend_compiled PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
    add_test(NAME onnx.roundtrip COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_roundtrip_tests.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.roundtrip PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
    add_test(NAME onnx.malformed COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_malformed_tests.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.malformed PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
    add_test(NAME onnx.limits COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_limits_tests.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.limits PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
    add_test(NAME onnx.lstm COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/onnx/run_lstm_tests.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.lstm PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 600)
    # Real models vs ONNX Runtime (skips with a note until tools/fetch-models.sh ran).
    add_test(NAME onnx.e2e COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_e2e.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.e2e PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
    # Lowered real models (-O3 --lower, PrimFuncs on the TIR interpreter) vs ONNX Runtime;
    # the sanitizer build leaves the two PP-OCRv4 models out (--small says so).
    if(PASSAGE_SANITIZE)
      set(_lowered_small --small)
    else()
      set(_lowered_small)
    endif()
    add_test(NAME onnx.e2e_lowered COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_lowered.py
             --passage $<TARGET_FILE:passage_cli> ${_lowered_small})
    set_tests_properties(onnx.e2e_lowered PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 1800)
    # `passage run` binds dynamic dims from --input arrays: same bits as with --input-shape.
    add_test(NAME onnx.bind_inputs COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/models/run_bind.py
             --passage $<TARGET_FILE:passage_cli>)
    set_tests_properties(onnx.bind_inputs PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 900)
  endif()
endif()

# libFuzzer target over the importer (tests/fuzz/fuzz_onnx.c), built with
# clang-14 like cmake/fuzz.cmake's targets, over the core sources plus the
# frontend and the generated decoder; seeded from libonnx-testdata at run time.
# tests/fuzz/onnx_mutator.c is its structure-aware mutator (decoded
# ModelProto edits; libFuzzer's byte mutations for what does not decode).
find_program(PASSAGE_ONNX_CLANG14 NAMES clang-14)
# Like cmake/fuzz.cmake's, it is built and run in the non-sanitizer configuration only.
if(PASSAGE_TESTS AND NOT PASSAGE_FUZZ AND NOT PASSAGE_SANITIZE AND PASSAGE_CLANG_FUZZERS AND PASSAGE_ONNX_CLANG14
   AND EXISTS /usr/share/libonnx-testdata/data/node)
  set(exe ${PROJECT_BINARY_DIR}/fuzz/fuzz_onnx)
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/fuzz
    COMMAND ${PASSAGE_ONNX_CLANG14} -std=c11 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -D_DEFAULT_SOURCE -DPSG_BUILDING_LIBRARY -w
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src -I${ONNX_GEN_DIR} -I${PROTOBUF_C_INCLUDE}
            ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_onnx.c ${PROJECT_SOURCE_DIR}/tests/fuzz/onnx_mutator.c
            ${PASSAGE_ONNX_CORE_SOURCES} ${ONNX_GEN_DIR}/onnx.pb-c.c
            ${PASSAGE_SOURCES} -o ${exe} ${PROTOBUF_C_LIB} -lm -lpthread
    DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_onnx.c ${PROJECT_SOURCE_DIR}/tests/fuzz/onnx_mutator.c ${PASSAGE_ONNX_SOURCES} ${ONNX_GEN_DIR}/onnx.pb-c.c ${PASSAGE_SOURCES}
    COMMENT "Building libFuzzer target fuzz_onnx with clang-14"
    VERBATIM)
  add_custom_target(passage_fuzz_onnx ALL DEPENDS ${exe})
  # Seeds, gathered when the test runs (nothing is committed): tools/fuzz-seeds.sh
  # lists the node models of libonnx-testdata, the real models and tests/bad/onnx.
  add_test(NAME fuzz.onnx COMMAND sh -c
    "exec \"$0\"/tools/fuzz-run.sh \"$1\" \"$2\" \"$3\" \"$4\" $(\"$0\"/tools/fuzz-seeds.sh onnx \"$0\")"
    ${PROJECT_SOURCE_DIR} ${exe} ${PASSAGE_FUZZ_SECONDS} ${PASSAGE_FUZZ_SEED} ${PROJECT_BINARY_DIR}/fuzz/artifacts)
  set_tests_properties(fuzz.onnx PROPERTIES TIMEOUT 900
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
endif()

# bench/onnx_lower_bench.py's in-process ONNX import + -O3 + lower timing.
add_executable(bench_onnx_lower ${PROJECT_SOURCE_DIR}/bench/onnx_lower.c)
target_link_libraries(bench_onnx_lower PRIVATE passage_onnx passage)
# bench/onnx_bench.py's in-process pipeline timing (first run and steady state).
add_executable(bench_onnx_pipeline ${PROJECT_SOURCE_DIR}/bench/onnx_pipeline.c)
target_link_libraries(bench_onnx_pipeline PRIVATE passage_onnx passage)
if(PASSAGE_TESTS AND EXISTS /usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx)
  add_test(NAME bench.onnx_pipeline.quick
           COMMAND bench_onnx_pipeline /usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx 3 3)
  set_tests_properties(bench.onnx_pipeline.quick PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "\"median_us\": [0-9.]+, \"min_us\": [0-9.]+, \"runs\": 2}")
endif()

# test_pass_scans also checks the real models: the frontend's sources
# built into the unit test over the core's objects (as fuzz_onnx does).
if(TARGET test_pass_scans)
  target_sources(test_pass_scans PRIVATE ${PASSAGE_ONNX_CORE_SOURCES} $<TARGET_OBJECTS:passage_onnx_proto>)
  target_include_directories(test_pass_scans PRIVATE ${ONNX_GEN_DIR} ${PROTOBUF_C_INCLUDE})
  target_link_libraries(test_pass_scans PRIVATE ${PROTOBUF_C_LIB})
endif()
