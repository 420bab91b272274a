# Passage — the compiled-model loader's tests (issue 17 item 4): hand-written
# models in the model ABI (tests/runtime/fixtures/*.c) built as shared
# libraries with this build's flags (instrumented in the sanitizer build), the
# C API test over them (runtime.c_api) and the CLI's shell test (runtime.cli).
if(NOT PASSAGE_TESTS)
  return()
endif()

set(_rt_dir ${PROJECT_SOURCE_DIR}/tests/runtime)
set(_rt_fixtures ${PROJECT_BINARY_DIR}/tests/runtime/fixtures)
set(_rt_targets)
foreach(f add params fail bad_abi malformed not_model)
  add_library(runtime_fixture_${f} MODULE ${_rt_dir}/fixtures/${f}.c)
  set_target_properties(runtime_fixture_${f} PROPERTIES PREFIX "" SUFFIX ".so" OUTPUT_NAME ${f}
                        LIBRARY_OUTPUT_DIRECTORY ${_rt_fixtures})
  target_include_directories(runtime_fixture_${f} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  list(APPEND _rt_targets runtime_fixture_${f})
endforeach()
# The add model again with OpenMP, for --threads.
find_package(OpenMP COMPONENTS C QUIET)
if(OpenMP_C_FOUND)
  add_library(runtime_fixture_add_omp MODULE ${_rt_dir}/fixtures/add.c)
  set_target_properties(runtime_fixture_add_omp PROPERTIES PREFIX "" SUFFIX ".so" OUTPUT_NAME add_omp
                        LIBRARY_OUTPUT_DIRECTORY ${_rt_fixtures})
  target_include_directories(runtime_fixture_add_omp PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(runtime_fixture_add_omp PRIVATE OpenMP::OpenMP_C)
  list(APPEND _rt_targets runtime_fixture_add_omp)
endif()

add_executable(test_runtime ${_rt_dir}/test_runtime.c $<TARGET_OBJECTS:passage_obj>)
target_include_directories(test_runtime PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/tests/unit)
target_compile_definitions(test_runtime PRIVATE RUNTIME_FIXTURES="${_rt_fixtures}" RUNTIME_SOURCE="${_rt_dir}"
                           $<$<BOOL:${OpenMP_C_FOUND}>:RUNTIME_OPENMP>)
target_link_libraries(test_runtime PRIVATE Threads::Threads m ${CMAKE_DL_LIBS})
add_dependencies(test_runtime ${_rt_targets})
add_test(NAME runtime.c_api COMMAND test_runtime)
set_tests_properties(runtime.c_api PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 300)

add_test(NAME runtime.cli COMMAND sh ${_rt_dir}/cli.sh $<TARGET_FILE:passage_cli> ${_rt_fixtures}
         ${PROJECT_BINARY_DIR}/tests/runtime/cli)
set_tests_properties(runtime.cli PROPERTIES ENVIRONMENT "${SAN_ENV}" TIMEOUT 300)
