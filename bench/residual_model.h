/* Passage — the generated model of bench_passes (issue 7) and
 * bench_memory (issue 21), as Relay text: a chain of residual blocks on a
 * (1, 2, 2, 4) tensor, CALLS_PER_BLOCK op calls each. Benchmark code. */
#ifndef PSG_BENCH_RESIDUAL_MODEL_H
#define PSG_BENCH_RESIDUAL_MODEL_H

#include <stdio.h>
#include <stdlib.h>

enum { CALLS_PER_BLOCK = 14 };

/* The model as Relay text (parsed, so the benchmark also shows the parser
 * handles it): weights and batch-norm statistics are parameters. */
static inline char *model_text(long blocks) {
  size_t cap = 512 + (size_t)blocks * 900, len = 0;
  char *s = malloc(cap);
#define OUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  OUT("#[version = \"0.0.5\"]\ndef @main(%%x: Tensor[(1, 2, 2, 4), float32], %%w: Tensor[(2, 2, 1, 1), float32], "
      "%%g: Tensor[(2), float32], %%b: Tensor[(2), float32], %%m: Tensor[(2), float32], %%v: Tensor[(2), float32]) {\n");
  long t = 0; /* next %t */
  OUT("  %%%ld = add(%%x, 0f);\n", t++);
  for (long i = 0; i < blocks; i++) {
    long in = t - 1;
    OUT("  %%%ld = nn.conv2d(%%%ld, %%w, padding=[0, 0, 0, 0], channels=2, kernel_size=[1, 1]);\n", t, in), t++;
    OUT("  %%%ld = nn.batch_norm(%%%ld, %%g, %%b, %%m, %%v);\n", t, t - 1), t++;
    OUT("  %%%ld = %%%ld.0;\n", t, t - 1), t++;
    OUT("  %%%ld = nn.relu(%%%ld);\n", t, t - 1), t++;
    OUT("  %%%ld = nn.relu(%%%ld);\n", t, t - 2), t++; /* the same relu again */
    OUT("  %%%ld = add(%%%ld, %%%ld);\n", t, t - 2, t - 1), t++;
    OUT("  %%%ld = multiply(%%%ld, 1f);\n", t, t - 1), t++;
    OUT("  %%%ld = reshape(%%%ld, newshape=[1, 2, 8]);\n", t, t - 1), t++;
    OUT("  %%%ld = reshape(%%%ld, newshape=[1, 2, 2, 4]);\n", t, t - 1), t++;
    OUT("  %%%ld = multiply(0.5f, 2f);\n", t), t++;
    OUT("  %%%ld = multiply(%%%ld, %%%ld);\n", t, t - 2, t - 1), t++;
    OUT("  %%%ld = add(%%%ld, %%%ld);\n", t, t - 1, in), t++;
    OUT("  %%%ld = subtract(%%%ld, 0f);\n", t, t - 1), t++;
  }
  OUT("  nn.relu(%%%ld)\n}\n", t - 1);
#undef OUT
  return s;
}

#endif
