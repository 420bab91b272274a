/* The size of the deep-graph tests: 1,000,000 nodes, run with a 1 MiB stack,
 * proves every traversal iterates (STYLE rule 9). The sanitizer build of
 * `make test` compiles them with a smaller PASSAGE_DEEP_N (CMakeLists.txt):
 * there the point is memory safety, which a 200,000-node graph checks as
 * well (and ASan's larger frames would overflow a recursive walk sooner). */
#ifndef PSG_TEST_DEEP_SIZE_H
#define PSG_TEST_DEEP_SIZE_H
#ifndef PASSAGE_DEEP_N
#define PASSAGE_DEEP_N 1000000
#endif
#endif
