/* passage schedule IN.py -s STEP [-s STEP ...] [-o OUT]: the tir.Schedule
 * primitives (include/passage/tir_schedule.h) applied in order to the first
 * PrimFunc of a TVMScript file, the result printed as TVMScript. A step is
 * the primitive's name and its arguments separated by spaces; a loop is
 * BLOCK.VAR (the loop over VAR around block BLOCK) or VAR alone when one
 * loop of the function has that name. */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/tir_schedule.h"
#include "passage/tvmscript.h"

static const char USAGE[] =
    "usage: passage schedule IN.py -s STEP [-s STEP ...] [-o OUT]\n"
    "Apply tir.Schedule primitives, in order, to the first PrimFunc of a TVMScript file and print it.\n"
    "A block is a stage: the stores to one buffer, by the buffer's name. A LOOP is BLOCK.VAR\n"
    "(the loop over VAR around BLOCK) or VAR when one loop of the function has that name.\n"
    "steps:\n"
    "  split LOOP F1,F2,...            (one factor may be None)\n"
    "  fuse LOOP LOOP ...              reorder LOOP LOOP ...\n"
    "  vectorize LOOP | parallel LOOP | unroll LOOP\n"
    "  annotate LOOP KEY INT\n"
    "  compute_inline BLOCK | reverse_compute_inline BLOCK\n"
    "  compute_at BLOCK LOOP [preserve_unit_loops]\n"
    "  cache_write BLOCK INDEX SCOPE\n"
    "  cache_write_at BLOCK LOOP SCOPE\n"
    "  decompose_reduction BLOCK LOOP\n";

typedef struct finder {
  const char *name;
  psg_tir_expr *found[2];
  int n;
} finder;

static int find_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  finder *f = v->user;
  if (psg_tir_kind(n) != PSG_TIR_FOR) return PSG_VISIT_CONTINUE;
  psg_tir_expr *var = psg_tir_get_var(n);
  if (strcmp(psg_tir_var_name(var), f->name) != 0) return PSG_VISIT_CONTINUE;
  if (f->n == 0 || f->found[0] != var) f->found[f->n < 2 ? f->n++ : 1] = var;
  return PSG_VISIT_CONTINUE;
}

/* The loop var named by `spec` (a new reference), or NULL after a message. */
static psg_tir_expr *find_loop(psg_ctx *ctx, psg_tir_schedule *s, const char *spec) {
  const char *dot = strrchr(spec, '.');
  if (dot) {
    char block[256];
    size_t bl = (size_t)(dot - spec);
    if (bl >= sizeof block) bl = sizeof block - 1;
    memcpy(block, spec, bl);
    block[bl] = 0;
    psg_tir_expr **loops = NULL, *hit = NULL;
    size_t n = 0;
    if (psg_tir_schedule_get_loops(s, block, &loops, &n)) return NULL;
    for (size_t i = 0; i < n; i++) {
      if (!hit && !strcmp(psg_tir_var_name(loops[i]), dot + 1)) hit = loops[i];
      else psg_tir_release(loops[i]);
    }
    psg_free(loops);
    if (!hit) fprintf(stderr, "passage schedule: block '%s' has no loop '%s'\n", block, dot + 1);
    return hit;
  }
  finder f = {spec, {NULL, NULL}, 0};
  psg_tir_visitor v = {.pre = find_pre, .user = &f};
  if (psg_tir_visit(ctx, &v, psg_tir_schedule_get_func(s))) return NULL;
  if (f.n != 1) {
    fprintf(stderr, "passage schedule: %s loop named '%s'%s\n", f.n ? "more than one" : "no", spec,
            f.n ? ": say which with BLOCK.VAR" : "");
    return NULL;
  }
  psg_tir_retain(f.found[0]);
  return f.found[0];
}

/* One step; 0 ok, 1 failed (reported), 2 usage. */
static int run_step(psg_ctx *ctx, psg_tir_schedule *s, char *step) {
  char *tok[16], *save = NULL;
  int nt = 0;
  for (char *t = strtok_r(step, " \t", &save); t && nt < 16; t = strtok_r(NULL, " \t", &save)) tok[nt++] = t;
  if (!nt) return fprintf(stderr, "passage schedule: empty step\n"), 2;
  const char *p = tok[0];
  psg_tir_expr *loops[16] = {0};
  psg_status st = PSG_OK;
  int rc = 0;
#define NEED(k) \
  if (nt != (k)) return fprintf(stderr, "passage schedule: %s takes %d argument(s)\n", p, (k) - 1), 2
#define LOOP(i, spec) \
  if (!(loops[i] = find_loop(ctx, s, spec))) { rc = 1; goto done; }
  if (!strcmp(p, "split")) {
    NEED(3);
    LOOP(0, tok[1]);
    int64_t f[16];
    size_t n = 0;
    for (char *q = strtok_r(tok[2], ",", &save); q && n < 16; q = strtok_r(NULL, ",", &save))
      f[n++] = !strcmp(q, "None") ? 0 : strtoll(q, NULL, 10);
    psg_tir_expr *out[16] = {0};
    st = psg_tir_schedule_split(s, loops[0], f, n, out);
    for (size_t i = 0; i < n; i++) psg_tir_release(out[i]);
  } else if (!strcmp(p, "fuse") || !strcmp(p, "reorder")) {
    if (nt < 2) return fprintf(stderr, "passage schedule: %s takes loops\n", p), 2;
    for (int i = 1; i < nt; i++) LOOP(i - 1, tok[i]);
    psg_tir_expr *out = NULL;
    st = p[0] == 'f' ? psg_tir_schedule_fuse(s, loops, (size_t)nt - 1, &out)
                     : psg_tir_schedule_reorder(s, loops, (size_t)nt - 1);
    psg_tir_release(out);
  } else if (!strcmp(p, "vectorize") || !strcmp(p, "parallel") || !strcmp(p, "unroll")) {
    NEED(2);
    LOOP(0, tok[1]);
    st = p[0] == 'v' ? psg_tir_schedule_vectorize(s, loops[0])
         : p[0] == 'p' ? psg_tir_schedule_parallel(s, loops[0])
                       : psg_tir_schedule_unroll(s, loops[0]);
  } else if (!strcmp(p, "annotate")) {
    NEED(4);
    LOOP(0, tok[1]);
    psg_attr *v = NULL;
    st = psg_attr_int(ctx, strtoll(tok[3], NULL, 10), &v);
    if (!st) st = psg_tir_schedule_annotate(s, loops[0], tok[2], v);
    psg_attr_release(v);
  } else if (!strcmp(p, "compute_inline") || !strcmp(p, "reverse_compute_inline")) {
    NEED(2);
    st = p[0] == 'c' ? psg_tir_schedule_compute_inline(s, tok[1]) : psg_tir_schedule_reverse_compute_inline(s, tok[1]);
  } else if (!strcmp(p, "compute_at")) {
    if (nt != 3 && nt != 4) return fprintf(stderr, "passage schedule: compute_at takes BLOCK LOOP [preserve_unit_loops]\n"), 2;
    LOOP(0, tok[2]);
    st = psg_tir_schedule_compute_at(s, tok[1], loops[0], nt == 4 && !strcmp(tok[3], "preserve_unit_loops"));
  } else if (!strcmp(p, "cache_write")) {
    NEED(4);
    st = psg_tir_schedule_cache_write(s, tok[1], atoi(tok[2]), tok[3], NULL);
  } else if (!strcmp(p, "cache_write_at")) {
    NEED(4);
    LOOP(0, tok[2]);
    st = psg_tir_schedule_cache_write_at(s, tok[1], loops[0], tok[3], NULL);
  } else if (!strcmp(p, "decompose_reduction")) {
    NEED(3);
    LOOP(0, tok[2]);
    st = psg_tir_schedule_decompose_reduction(s, tok[1], loops[0], NULL);
  } else {
    fprintf(stderr, "passage schedule: unknown primitive '%s' (see passage schedule --help)\n", p);
    return 2;
  }
#undef NEED
#undef LOOP
  if (st) {
    cli_report_failure(ctx, "schedule", st, false);
    rc = 1;
  }
done:
  for (int i = 0; i < 16; i++) psg_tir_release(loops[i]);
  return rc;
}

int cmd_schedule(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  char **steps = calloc((size_t)argc + 1, sizeof *steps);
  int nsteps = 0, rc = 0;
  if (!steps) return fprintf(stderr, "passage: out of memory\n"), 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
      steps[nsteps++] = argv[++i];
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(USAGE, stdout);
      free(steps);
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      if (!cli_missing_value("schedule", argv[i], (const char *const[]){"-o", "-s", NULL}))
        fprintf(stderr, "passage schedule: unknown option '%s'\n", argv[i]);
      free(steps);
      return 2;
    } else if (!in) {
      in = argv[i];
    } else {
      fprintf(stderr, "passage schedule: more than one input\n");
      free(steps);
      return 2;
    }
  }
  if (!in) {
    fprintf(stderr, "passage schedule: missing input (see passage schedule --help)\n");
    free(steps);
    return 2;
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return free(steps), fprintf(stderr, "passage: out of memory\n"), 1;
  size_t len = 0, plen = 0;
  char *text = NULL, *printed = NULL;
  FILE *f = fopen(in, "rb");
  if (f) {
    text = cli_read_all(f, &len);
    fclose(f);
  }
  psg_tir_script *sc = NULL;
  psg_tir_schedule *s = NULL;
  psg_status st = text ? psg_tir_script_parse(ctx, text, len, in, &sc) : PSG_ERR_IO;
  if (!text) fprintf(stderr, "passage schedule: cannot read '%s'\n", in);
  if (!st && psg_tir_script_count(sc) == 0) {
    fprintf(stderr, "passage schedule: '%s' holds no PrimFunc\n", in);
    rc = 1;
  }
  if (!st && !rc) st = psg_tir_schedule_create(psg_tir_script_get(sc, 0), &s);
  if (st) {
    if (text) cli_report_failure(ctx, "schedule", st, false);
    rc = 1;
  }
  for (int i = 0; !rc && i < nsteps; i++) {
    char *copy = strdup(steps[i]);
    rc = copy ? run_step(ctx, s, copy) : 1;
    free(copy);
  }
  if (!rc) {
    st = psg_tir_script_print_func(psg_tir_schedule_get_func(s), psg_tir_script_name(sc, 0), PSG_TIR_SCRIPT_DEFAULT,
                                   &printed, &plen);
    if (!st && out && strcmp(out, "-")) st = cli_write_file_atomic(ctx, out, printed, plen);
    else if (!st) fwrite(printed, 1, plen, stdout);
    if (st) {
      cli_report_failure(ctx, "schedule", st, false);
      rc = 1;
    }
  }
  psg_free(printed);
  psg_tir_schedule_release(s);
  psg_tir_script_release(sc);
  free(text);
  free(steps);
  psg_ctx_release(ctx);
  return rc;
}
