/* A test-only shared library that is not a pass plugin: it exports no
 * psg_get_pass_plugin_info, so psg_pass_plugin_load must refuse it. */
__attribute__((visibility("default"))) int not_a_plugin(void) { return 42; }
