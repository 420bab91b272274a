/* Passage — the static memory plan (src/codegen/memory_plan.c) and the host
 * program built from a lowered @main (src/codegen/host_program.c).
 *
 * The plan is checked two ways: psgi_memory_plan_check (no two buffers alive
 * at a common point share a byte), and, independently of the intervals the
 * builder computed, by running the host program symbolically along every
 * path through its Ifs: each workspace granule remembers which value wrote
 * it last, a read must find its own value there, and a call's operands
 * never share bytes. Over random intervals, random Relay graphs with Ifs
 * and tuples (lowered by the real pipeline), and the models. */
#include "check.h"
#include "codegen/host_program.h"
#include "codegen/memory_plan.h"
#include "passage/compile.h"

#define NONE UINT32_MAX

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

/* Random intervals: the plan passes its check, is no larger than the sum,
 * and no smaller than the most bytes alive at one point. */
static void test_random_intervals(void) {
  psg_ctx *ctx;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  for (int trial = 0; trial < 300; trial++) {
    size_t n = 1 + rnd(120);
    uint32_t points = 1 + rnd(60);
    psgi_plan_buffer *b = calloc(n, sizeof *b);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
      b[i].size = rnd(5) ? 1 + rnd(rnd(2) ? 300 : 40000) : 0;
      b[i].first = rnd(points);
      b[i].last = b[i].first + rnd(points - b[i].first);
      sum += (b[i].size + 63) / 64 * 64;
    }
    uint64_t peak;
    CHECK_OK(psgi_memory_plan(ctx, b, n, &peak));
    size_t x, y;
    CHECK(psgi_memory_plan_check(ctx, b, n, peak, &x, &y));
    CHECK(peak <= sum);
    uint64_t most = 0;
    for (uint32_t t = 0; t < points; t++) {
      uint64_t live = 0;
      for (size_t i = 0; i < n; i++)
        if (b[i].first <= t && t <= b[i].last) live += (b[i].size + 63) / 64 * 64;
      if (live > most) most = live;
    }
    CHECK(peak >= most);
    /* the check can fail: move a buffer onto one it meets */
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++)
        if (b[i].size && b[j].size && b[i].first <= b[j].last && b[j].first <= b[i].last) {
          b[j].offset = b[i].offset;
          CHECK(!psgi_memory_plan_check(ctx, b, n, peak, &x, &y));
          i = j = n;
        }
    free(b);
  }
  psg_ctx_release(ctx);
}

/* Steps' matching ELSE / ENDIF. */
static void match_ifs(const psgi_host_program *p, uint32_t *match) {
  uint32_t stack[256];
  int sp = 0;
  for (uint32_t i = 0; i < p->steps.len; i++) {
    match[i] = NONE;
    if (p->steps.data[i].kind == PSGI_STEP_IF) stack[sp++] = i;
    else if (p->steps.data[i].kind == PSGI_STEP_ELSE) match[stack[sp - 1]] = i, stack[sp - 1] = i;
    else if (p->steps.data[i].kind == PSGI_STEP_ENDIF) match[stack[--sp]] = i;
  }
}

typedef struct sim {
  const psgi_host_program *p;
  uint32_t *owner; /* per 64-byte granule of the workspace */
  bool *written;   /* per value: an OUTPUT was written */
  int errors;
} sim;

static bool in_ws(const psgi_host_program *p, uint32_t h, uint64_t *lo, uint64_t *hi) {
  const psgi_host_value *v = &p->values.data[h];
  if (v->plan == NONE || !v->bytes) return false;
  *lo = p->buffers[v->plan].offset / 64;
  *hi = (p->buffers[v->plan].offset + v->bytes + 63) / 64;
  return true;
}

static void sim_read(sim *s, uint32_t v) {
  uint32_t h = psgi_host_home(s->p, v);
  uint64_t lo, hi;
  if (s->p->values.data[h].kind == PSGI_VALUE_OUTPUT && !s->written[h]) s->errors++;
  if (!in_ws(s->p, h, &lo, &hi)) return;
  for (uint64_t g = lo; g < hi; g++)
    if (s->owner[g] != h) {
      s->errors++;
      return;
    }
}

static void sim_write(sim *s, uint32_t v) {
  uint32_t h = psgi_host_home(s->p, v);
  uint64_t lo, hi;
  s->written[h] = true;
  if (!in_ws(s->p, h, &lo, &hi)) return;
  for (uint64_t g = lo; g < hi; g++) s->owner[g] = h;
}

static bool disjoint(const psgi_host_program *p, uint32_t a, uint32_t b) {
  uint32_t ha = psgi_host_home(p, a), hb = psgi_host_home(p, b);
  uint64_t la, ua, lb, ub;
  if (ha == hb) return p->values.data[ha].kind == PSGI_VALUE_INPUT || p->values.data[ha].kind == PSGI_VALUE_CONST;
  if (!in_ws(p, ha, &la, &ua) || !in_ws(p, hb, &lb, &ub)) return true;
  return ua <= lb || ub <= la;
}

/* Runs the program along the path `bits` chooses (bit k: the k-th If met
 * takes its else branch); returns the number of Ifs met. */
static int simulate(const psgi_host_program *p, const uint32_t *match, uint32_t bits, int *errors) {
  sim s = {p, calloc(p->workspace_bytes / 64 + 1, sizeof(uint32_t)), calloc(p->values.len, sizeof(bool)), 0};
  for (uint64_t g = 0; g <= p->workspace_bytes / 64; g++) s.owner[g] = NONE;
  for (size_t i = 0; i < p->inputs.len; i++) s.written[p->inputs.data[i]] = true;
  int ifs = 0;
  for (uint32_t i = 0; i < p->steps.len; i++) {
    const psgi_host_step *st = &p->steps.data[i];
    switch (st->kind) {
    case PSGI_STEP_CALL: {
      const uint32_t *a = &p->args.data[st->arg0];
      uint32_t n = st->nin + st->nout;
      for (uint32_t k = 0; k < st->nin; k++) sim_read(&s, a[k]);
      for (uint32_t x = 0; x < n; x++) {
        for (uint32_t y = x + 1; y < n; y++)
          if (!(x < st->nin && y < st->nin) && !disjoint(p, a[x], a[y])) s.errors++;
        if (st->scratch != NONE && !disjoint(p, a[x], st->scratch)) s.errors++;
      }
      for (uint32_t k = st->nin; k < n; k++) sim_write(&s, a[k]);
      if (st->scratch != NONE) sim_write(&s, st->scratch);
      break;
    }
    case PSGI_STEP_COPY:
      sim_read(&s, st->src);
      sim_write(&s, st->dst);
      break;
    case PSGI_STEP_IF:
      sim_read(&s, st->cond);
      if (bits >> (ifs++ & 31) & 1) i = match[i]; /* to the ELSE: its steps follow */
      break;
    case PSGI_STEP_ELSE:
      i = match[i]; /* the then branch ran: skip to ENDIF */
      break;
    case PSGI_STEP_ENDIF:
      break;
    }
  }
  for (size_t o = 0; o < p->outputs.len; o++)
    if (!s.written[p->outputs.data[o]]) s.errors++;
  free(s.owner);
  free(s.written);
  *errors += s.errors;
  return ifs;
}

static uint64_t fake_scratch(const psg_tir_prim_func *f) { return 100 * psg_tir_prim_func_num_params(f); }

/* Builds the program of `lowered` and checks its plan on every path (up to
 * 64). Returns the number of errors. */
static int check_program(psg_ctx *ctx, psg_module *lowered, const char *what, bool verbose) {
  psgi_host_program p;
  psg_status st = psgi_host_program_build(ctx, lowered, fake_scratch, &p);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    fprintf(stderr, "%s: %s\n", what, d ? psg_diag_message(d) : "?");
    return 1;
  }
  size_t x, y;
  int errors = 0;
  if (!psgi_memory_plan_check(ctx, p.buffers, p.num_buffers, p.workspace_bytes, &x, &y)) errors++;
  uint32_t *match = calloc(p.steps.len + 1, sizeof *match);
  match_ifs(&p, match);
  int ifs = simulate(&p, match, 0, &errors);
  for (uint32_t bits = 1; ifs && bits < (1u << (ifs < 6 ? ifs : 6)); bits++) simulate(&p, match, bits, &errors);
  free(match);
  CHECK(p.workspace_bytes <= p.intermediate_bytes);
  if (verbose)
    printf("  %s: %u calls, %zu buffers, workspace %llu B vs %llu B of intermediates, %d If\n", what, p.num_calls,
           p.num_buffers, (unsigned long long)p.workspace_bytes, (unsigned long long)p.intermediate_bytes, ifs);
  if (errors) fprintf(stderr, "%s: %d plan errors\n", what, errors);
  psgi_host_program_fini(&p);
  return errors;
}

static psg_module *lower(psg_ctx *ctx, psg_module *m) {
  psg_pass_context *pc = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  CHECK_OK(psg_pass_context_enter(pc));
  psg_status st = psg_compile_lower(m, pc, &out);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    fprintf(stderr, "lower: %s\n", d ? psg_diag_message(d) : "?");
  }
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  return out;
}

/* A random Relay graph over (4, 8) tensors: elementwise ops, softmax (which
 * stops fusion), Ifs (nested up to twice) whose branches use outer values,
 * standalone reshapes (which share their input's storage), and a result
 * tuple that may repeat a value or hold an input. */
static void random_graph(char *buf, size_t cap) {
  size_t len = 0;
  int nv = 0, vals[400], nvals = 0;
#define OUT(...) (len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__))
  OUT("#[version = \"0.0.5\"]\ndef @main(%%x0: Tensor[(4, 8), float32], %%x1: Tensor[(4, 8), float32]) {\n");
  static const char *un[] = {"nn.relu", "tanh", "sigmoid", "nn.softmax", "negative"};
  static const char *bin[] = {"add", "multiply", "subtract"};
  /* vals: -1, -2 are the inputs */
  vals[nvals++] = -1;
  vals[nvals++] = -2;
  struct { int id, phase, remaining, base; } lvl[3];
  int depth = 0;
  int n = 4 + (int)rnd(24);
  for (int i = 0; i < n || depth > 0; i++) {
    if (depth > 0 && lvl[depth].remaining == 0) {
      /* close the branch with its newest value (maybe one from outside) */
      int last = vals[nvals - 1];
      if (last < 0) OUT("  %%x%d\n", -last - 1); else OUT("  %%%d\n", last);
      nvals = lvl[depth].base;
      if (lvl[depth].phase == 0) {
        OUT("} else {\n");
        lvl[depth].phase = 1;
        lvl[depth].remaining = (int)rnd(4); /* an else may be a bare outer value */
      } else {
        OUT("};\n");
        vals[nvals++] = lvl[depth--].id;
      }
      continue;
    }
    if (depth > 0) lvl[depth].remaining--;
    char a[16], b[16];
    int va = vals[rnd((uint32_t)nvals)], vb = vals[rnd((uint32_t)nvals)];
    if (va < 0) snprintf(a, sizeof a, "%%x%d", -va - 1); else snprintf(a, sizeof a, "%%%d", va);
    if (vb < 0) snprintf(b, sizeof b, "%%x%d", -vb - 1); else snprintf(b, sizeof b, "%%%d", vb);
    uint32_t r = rnd(10);
    if (r == 0 && depth < 2 && i < n) {
      int id = nv++;
      OUT("  %%%d = if (less(sum(%s), 0f)) {\n", id, a);
      depth++;
      lvl[depth].id = id;
      lvl[depth].phase = 0;
      lvl[depth].remaining = 1 + (int)rnd(4);
      lvl[depth].base = nvals;
      continue;
    }
    int id = nv++;
    if (r == 1) OUT("  %%%d = reshape(nn.softmax(reshape(%s, newshape=[2, 16])), newshape=[4, 8]);\n", id, a); /* standalone reshapes */
    else if (r < 5) OUT("  %%%d = %s(%s);\n", id, un[rnd(5)], a);
    else OUT("  %%%d = %s(%s, %s);\n", id, bin[rnd(3)], a, b);
    vals[nvals++] = id;
  }
  int k = 1 + (int)rnd(3);
  OUT("  (");
  for (int i = 0; i < k; i++) {
    int v = rnd(4) == 0 ? vals[rnd((uint32_t)nvals)] : vals[nvals - 1 - rnd(nvals < 3 ? (uint32_t)nvals : 3)];
    if (v < 0) OUT("%s%%x%d", i ? ", " : "", -v - 1); else OUT("%s%%%d", i ? ", " : "", v);
  }
  OUT(")\n}\n");
#undef OUT
}

static uint32_t count_reshapes(psg_ctx *ctx, psg_module *low) {
  psgi_host_program p;
  if (psgi_host_program_build(ctx, low, NULL, &p)) return 0;
  uint32_t n = p.num_reshapes;
  psgi_host_program_fini(&p);
  return n;
}

static void test_random_graphs(void) {
  psg_ctx *ctx;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  static char text[65536];
  int ok = 0, reshaped = 0;
  for (int trial = 0; trial < 60; trial++) {
    random_graph(text, sizeof text);
    psg_module *m = NULL;
    psg_status st = psg_module_parse(ctx, text, strlen(text), "random", &m);
    CHECK_OK(st);
    if (st) {
      fprintf(stderr, "%s\n", text);
      continue;
    }
    psg_module *low = lower(ctx, m);
    if (low) {
      int e = check_program(ctx, low, "random", false);
      reshaped += count_reshapes(ctx, low) > 0;
      CHECK_EQ_INT(e, 0);
      if (e) fprintf(stderr, "%s\n", text);
      ok += !e;
    }
    psg_module_release(low);
    psg_module_release(m);
    psg_ctx_clear_diags(ctx);
  }
  printf("  %d random graphs planned, %d with standalone reshapes\n", ok, reshaped);
  psg_ctx_release(ctx);
}

/* The If's result lives where the then branch computes it; the else branch
 * returns a value from before the If, which is copied. */
static void test_if_placement(void) {
  psg_ctx *ctx;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  const char *text = "#[version = \"0.0.5\"]\n"
                     "def @main(%x: Tensor[(4, 8), float32]) {\n"
                     "  let %y = nn.softmax(%x);\n"
                     "  %0 = if (less(sum(%y), 0f)) { nn.softmax(negative(%y)) } else { %y };\n"
                     "  (%0, %x, %0)\n"
                     "}\n";
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "if", &m));
  psg_module *low = m ? lower(ctx, m) : NULL;
  psgi_host_program p;
  if (low && !psgi_host_program_build(ctx, low, NULL, &p)) {
    int copies = 0, ifs = 0;
    for (size_t i = 0; i < p.steps.len; i++) {
      copies += p.steps.data[i].kind == PSGI_STEP_COPY;
      ifs += p.steps.data[i].kind == PSGI_STEP_IF;
    }
    CHECK_EQ_INT(ifs, 1);
    /* %y into the If's value (else), %x into output 1, %0 again into output 2 */
    CHECK_EQ_INT(copies, 3);
    CHECK_EQ_INT(p.outputs.len, 3);
    /* the If's value is output 0 itself */
    uint32_t o0 = p.outputs.data[0];
    bool placed = false;
    for (size_t i = 0; i < p.values.len; i++)
      if (p.values.data[i].kind == PSGI_VALUE_TEMP && psgi_host_home(&p, (uint32_t)i) == o0) placed = true;
    CHECK(placed);
    psgi_host_program_fini(&p);
  } else {
    CHECK(0);
  }
  CHECK_EQ_INT(check_program(ctx, low, "if", true), 0);
  psg_module_release(low);
  psg_module_release(m);
  psg_ctx_release(ctx);
}

/* A model file: Relay text, lowered here, or an already lowered module
 * (`passage opt -O3 --lower` output: it calls call_lowered). */
static void check_file(const char *path) {
  psg_ctx *ctx;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse_file(ctx, path, &m));
  bool lowered = false;
  for (size_t i = 0; m && i < psg_module_num_functions(m); i++)
    if (psg_module_get_prim_func(m, i)) lowered = true;
  psg_module *low = NULL;
  if (m && !lowered) {
    low = lower(ctx, m);
  } else if (m) { /* parsed text has no types yet */
    psg_pass *infer = NULL;
    psg_pass_context *pc = NULL;
    CHECK_OK(psg_pipeline_parse(ctx, "InferType", &infer));
    CHECK_OK(psg_pass_context_create(ctx, &pc));
    CHECK_OK(psg_pass_run(infer, m, pc, &low));
    psg_pass_release(infer);
    psg_pass_context_release(pc);
  }
  const char *base = strrchr(path, '/');
  if (low) CHECK_EQ_INT(check_program(ctx, low, base ? base + 1 : path, true), 0);
  psg_module_release(low);
  psg_module_release(m);
  psg_ctx_release(ctx);
}

static void test_models(void) { check_file(PASSAGE_SOURCE_DIR "/examples/models/small_cnn.relay"); }

/* psg_compile_to_c under allocation failure at every point: NOMEM (or
 * success once the failure point is past the end), never a crash or a leak
 * (the sanitizer build's LeakSanitizer), and the same C once it succeeds.
 * The context's allocator pools small blocks, so the hook sees a few
 * allocations only. */
static void test_compile_oom(void) {
  check_alloc a = {0, 0};
  psg_ctx *ctx = check_ctx_with(&a);
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse_file(ctx, PASSAGE_SOURCE_DIR "/tests/compile/if_model.relay", &m));
  psg_module *low = m ? lower(ctx, m) : NULL;
  psg_compile_output *ref = NULL;
  if (low) CHECK_OK(psg_compile_to_c(low, NULL, "m", PSG_COMPILE_PARAMS_FILE, &ref));
  long n = 1, fails = 0;
  for (; low && ref && n < 100000; n++) {
    a.calls = 0;
    a.fail_at = n;
    psg_compile_output *c = NULL;
    psg_status st = psg_compile_to_c(low, NULL, "m", PSG_COMPILE_PARAMS_FILE, &c);
    a.fail_at = 0;
    if (st == PSG_OK) {
      CHECK_STR(psg_compile_output_module_hash(c), psg_compile_output_module_hash(ref));
      CHECK_STR(psg_compile_output_header(c), psg_compile_output_header(ref));
      CHECK_STR(psg_compile_output_source(c), psg_compile_output_source(ref));
      psg_compile_output_free(c);
      break;
    }
    fails++;
    /* a failed compile leaves nothing behind: the next one gives the same C */
    psg_compile_output *again = NULL;
    CHECK_OK(psg_compile_to_c(low, NULL, "m", PSG_COMPILE_PARAMS_FILE, &again));
    if (again) {
      if (strcmp(psg_compile_output_module_hash(again), psg_compile_output_module_hash(ref)))
        printf("  failure point %ld: the next compile's hash is %s, not %s\n", n,
               psg_compile_output_module_hash(again), psg_compile_output_module_hash(ref));
      CHECK_STR(psg_compile_output_module_hash(again), psg_compile_output_module_hash(ref));
      CHECK_STR(psg_compile_output_source(again), psg_compile_output_source(ref));
    }
    psg_compile_output_free(again);
    if (st != PSG_ERR_NOMEM) {
      CHECK_EQ_INT(st, PSG_ERR_NOMEM);
      break;
    }
    CHECK(c == NULL);
    psg_ctx_clear_diags(ctx);
  }
  printf("  compile_to_c: %ld allocation failure points, each NOMEM\n", fails);
  CHECK(fails > 0);
  psg_compile_output_free(ref);
  psg_module_release(low);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* With arguments: only the plans of those (lowered) model files, for
 * tests/models/run_compiled.py --plan-check on the real models. */
int main(int argc, char **argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; i++) check_file(argv[i]);
    return check_finish();
  }
  RUN_TEST(test_random_intervals);
  RUN_TEST(test_if_placement);
  RUN_TEST(test_random_graphs);
  RUN_TEST(test_models);
  RUN_TEST(test_compile_oom);
  return check_finish();
}
