# Pass plugins (include/passage/plugin.h): the example plugin of
# examples/plugin and the test plugins of tests/plugin, built as shared
# libraries into ${PROJECT_BINARY_DIR}/plugins, where the lit tests
# (%plugins) and the Python tests (next to libpassage.so) load them. They
# link nothing: the symbols they use come from the libpassage already loaded
# by the program that loads them, as an out-of-tree plugin's would.
set(PASSAGE_PLUGIN_DIR ${PROJECT_BINARY_DIR}/plugins)
function(passage_plugin name src)
  add_library(${name} MODULE ${src})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  set_target_properties(${name} PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${PASSAGE_PLUGIN_DIR}
                        C_VISIBILITY_PRESET hidden)
  add_dependencies(${name} passage)
endfunction()

passage_plugin(passage_example_plugin ${PROJECT_SOURCE_DIR}/examples/plugin/add_zero_plugin.c)
if(PASSAGE_TESTS)
  passage_plugin(passage_seeded_bug_plugin ${PROJECT_SOURCE_DIR}/tests/plugin/seeded_bug_plugin.c)
  passage_plugin(passage_bad_abi_plugin ${PROJECT_SOURCE_DIR}/tests/plugin/bad_abi_plugin.c)
  passage_plugin(passage_no_entry_plugin ${PROJECT_SOURCE_DIR}/tests/plugin/no_entry_plugin.c)
endif()

# The unit test that loads them: it links the library's objects, so it
# exports their psg_ symbols for the plugins (as libpassage.so does).
if(TARGET test_pass_bisect)
  target_compile_definitions(test_pass_bisect PRIVATE PASSAGE_PLUGIN_DIR="${PASSAGE_PLUGIN_DIR}")
  set_target_properties(test_pass_bisect PROPERTIES ENABLE_EXPORTS ON)
  target_link_libraries(test_pass_bisect PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(test_pass_bisect passage_example_plugin passage_bad_abi_plugin passage_no_entry_plugin)
endif()
