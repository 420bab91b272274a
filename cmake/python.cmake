# Passage — the Python frontend (python/passage, a ctypes layer over the
# shared library): its pytest suite as the CTest test `python`, run with
# Debian's /usr/bin/python3 (which has python3-pytest) against this build's
# libpassage.so. In a PASSAGE_SANITIZE build the interpreter is not
# instrumented, so the sanitizer runtimes are preloaded; leak detection is off
# inside Python (CPython keeps memory at exit) and the tests check Passage's
# own objects with the live-object counter instead. An exception that escapes a
# ctypes callback or a finalizer ("unraisable") fails the run.
if(NOT PASSAGE_TESTS)
  return()
endif()

set(PASSAGE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python interpreter with pytest for tests/python")
execute_process(COMMAND ${PASSAGE_PYTHON} -c "import pytest"
                RESULT_VARIABLE _passage_no_pytest OUTPUT_QUIET ERROR_QUIET)
if(_passage_no_pytest)
  message(WARNING "${PASSAGE_PYTHON} has no pytest: the Python frontend tests are not run")
  return()
endif()

set(_passage_py_env
  "PASSAGE_LIBRARY=$<TARGET_FILE:passage>"
  "PYTHONDONTWRITEBYTECODE=1")
if(PASSAGE_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _passage_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libubsan.so
                  OUTPUT_VARIABLE _passage_libubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(_passage_libasan "${_passage_libasan}" REALPATH)
  get_filename_component(_passage_libubsan "${_passage_libubsan}" REALPATH)
  list(APPEND _passage_py_env
    "LD_PRELOAD=${_passage_libasan}:${_passage_libubsan}"
    "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0"
    "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
endif()

add_test(NAME python
         COMMAND ${PASSAGE_PYTHON} -m pytest -q -p no:cacheprovider
                 -W error::pytest.PytestUnraisableExceptionWarning tests/python
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(python PROPERTIES ENVIRONMENT "${_passage_py_env}" TIMEOUT 900)
