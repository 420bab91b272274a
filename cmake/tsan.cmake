# Passage — the ThreadSanitizer configuration (make test-tsan, build/tsan):
# only the tests that run threads, so that `make test` stays fast: the unit
# tests tests/unit/test_threads_*.c (CTest `tsan.NAME`) and
# tests/python/test_threads.py (`tsan.python_threads`). CPython is not
# instrumented, so the TSan runtime is preloaded into it; the Python threads'
# calls into libpassage are instrumented through the library, and their
# synchronisation (the GIL is a pthread mutex) is seen by the interceptors.
enable_testing()
set(_passage_tsan_env "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:history_size=4")

file(GLOB _passage_tsan_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/unit/test_threads_*.c)
foreach(src ${_passage_tsan_tests})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src} $<TARGET_OBJECTS:passage_obj>)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${name} PRIVATE PASSAGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(${name} PRIVATE Threads::Threads m)
  add_test(NAME tsan.${name} COMMAND ${name})
  set_tests_properties(tsan.${name} PROPERTIES ENVIRONMENT "${_passage_tsan_env}" TIMEOUT 300)
endforeach()
# What `make build-tsan` builds: these tests and the shared library.
add_custom_target(tsan_tests DEPENDS passage)
foreach(src ${_passage_tsan_tests})
  get_filename_component(name ${src} NAME_WE)
  add_dependencies(tsan_tests ${name})
endforeach()

set(PASSAGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python interpreter with pytest for tests/python")
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-resource-dir
                  OUTPUT_VARIABLE _passage_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_passage_libtsan "${_passage_rt}/lib/linux/libclang_rt.tsan-${CMAKE_SYSTEM_PROCESSOR}.so")
else()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libtsan.so
                  OUTPUT_VARIABLE _passage_libtsan OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
get_filename_component(_passage_libtsan "${_passage_libtsan}" REALPATH)
execute_process(COMMAND ${PASSAGE_PYTHON} -c "import pytest"
                RESULT_VARIABLE _passage_no_pytest OUTPUT_QUIET ERROR_QUIET)
if(_passage_no_pytest OR NOT EXISTS "${_passage_libtsan}")
  message(WARNING "no pytest in ${PASSAGE_PYTHON} or no TSan runtime (${_passage_libtsan}): "
                  "tests/python/test_threads.py is not run under ThreadSanitizer")
  return()
endif()
# -s: pytest must not capture stderr, or a report (TSan then exits at once)
# would be lost with the capture.
add_test(NAME tsan.python_threads
         COMMAND ${PASSAGE_PYTHON} -m pytest -s -q -p no:cacheprovider
                 -W error::pytest.PytestUnraisableExceptionWarning tests/python/test_threads.py
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(tsan.python_threads PROPERTIES TIMEOUT 300 ENVIRONMENT
  "PASSAGE_LIBRARY=$<TARGET_FILE:passage>;PYTHONDONTWRITEBYTECODE=1;LD_PRELOAD=${_passage_libtsan};${_passage_tsan_env}")
