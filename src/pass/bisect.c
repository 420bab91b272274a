/* Passage — opt-bisect (LLVM's -opt-bisect-limit, docs/pass-infra.md): with
 * the config testing.opt_bisect_limit = N >= 0, every optional pass
 * execution gets an index (a module pass once, a function or prim-func pass
 * once per function it is given, in module order; Sequentials and
 * FixedPoints are containers and count nothing), the first N run and the
 * others are skipped (their input comes back unchanged), and each decision
 * is a BISECT note on the context. Passes essential for correctness always
 * run, are marked so and take no index: whether a dependency runs depends
 * on the module (a required pass whose result already holds is not run
 * again), and an index must not.
 *
 * The count restarts at the outermost psg_pass_run, so indices are stable:
 * the executions up to N are the same whatever the limit, because what runs
 * before an index does not depend on the limit. A call in which something
 * was skipped records neither the properties nor the spec of its pass on
 * the result (run.c reads pc->bisect_skips). */
#include "pass/pass_internal.h"

/* Passes whose skipping would not make a worse program but a wrong one or
 * none: type inference, and the lowering steps later stages cannot do
 * without (LowerTE; the TIR passes that flatten buffers and blocks and lower
 * virtual threads). The rest of the TIR list only optimizes. Passes run as
 * `required` dependencies or to establish a module property are essential
 * too (psg_pass.essential), and so are the context's required passes. */
static const char *const essential_names[] = {
    "InferType",         "LowerTE",          "tir.StorageFlatten", "tir.LowerOpaqueBlock",
    "tir.FlattenBuffer", "tir.InjectVirtualThread",
};

static const char *pass_name(const psg_pass *p) { return p->registry_name ? p->registry_name : p->info->name; }

static bool is_essential(const psg_pass *p, const psg_pass_context *pc) {
  if (p->essential || pc->bisect_essential > 0) return true;
  const char *name = pass_name(p);
  for (size_t i = 0; i < sizeof essential_names / sizeof *essential_names; i++)
    if (!strcmp(name, essential_names[i])) return true;
  return psgi_str_vec_has(&pc->required_pass, name) || psgi_str_vec_has(&pc->required_pass, p->info->name);
}

static bool is_container(const psg_pass *p) { return p->kind == PSG_PASS_SEQUENTIAL || psgi_pass_is_fixed_point(p); }

/* The limit is read once, when the outermost run begins. Without a limit
 * nothing on the context is written, so runs on several threads sharing a
 * context touch no shared state here (with one, the numbering of runs on
 * several threads at once would mean nothing anyway). */
bool psgi_bisect_run_begin(psg_pass_context *pc) {
  if (pc->run_depth > 0) return pc->run_depth++, true;
  int64_t limit = psg_pass_context_config_int(pc, "testing.opt_bisect_limit");
  if (limit < 0) return false;
  pc->bisect_limit = limit;
  pc->bisect_count = 0;
  pc->bisect_essential = 0;
  pc->run_depth = 1;
  return true;
}

void psgi_bisect_run_end(psg_pass_context *pc, bool begun) {
  if (begun) pc->run_depth--;
}

/* Counts one execution of `p` (on function `func`, or the module when NULL)
 * and decides it, with its BISECT note. */
static bool decide(const psg_pass *p, psg_pass_context *pc, const char *func, int64_t limit, bool essential) {
  const char *at = func ? "@" : "", *where = func ? func : "module";
  if (essential) {
    psgi_diag_add(p->ctx, PSG_SEVERITY_NOTE, PSG_OK, NULL, 0, 0, NULL, 0, "OptBisect",
                  "BISECT: running essential pass %s on %s%s (never skipped)", p->info->name, at, where);
    return true;
  }
  int64_t index = ++pc->bisect_count;
  bool run = index <= limit;
  if (!run) pc->bisect_skips++;
  psgi_diag_add(p->ctx, PSG_SEVERITY_NOTE, PSG_OK, NULL, 0, 0, NULL, 0, "OptBisect", "BISECT: %s pass (%lld) %s on %s%s",
                run ? "running" : "NOT running", (long long)index, p->info->name, at, where);
  return run;
}

int psgi_bisect_gate(psg_pass *p, psg_pass_context *pc) {
  if (pc->run_depth == 0) return PSGI_BISECT_RUN; /* no limit */
  int64_t limit = pc->bisect_limit;
  bool essential = is_essential(p, pc);
  /* Function kinds are decided per function (psgi_bisect_run_on). */
  if (p->kind == PSG_PASS_MODULE && !is_container(p) && !decide(p, pc, NULL, limit, essential))
    return PSGI_BISECT_SKIP;
  if (!essential) return PSGI_BISECT_RUN;
  pc->bisect_essential++; /* what an essential pass runs is essential too */
  return PSGI_BISECT_RUN_ESSENTIAL;
}

void psgi_bisect_ungate(psg_pass_context *pc, int gate) {
  if (gate == PSGI_BISECT_RUN_ESSENTIAL) pc->bisect_essential--;
}

bool psgi_bisect_run_on(psg_pass *p, psg_pass_context *pc, const char *func) {
  if (pc->run_depth == 0) return true; /* no limit */
  return decide(p, pc, func, pc->bisect_limit, is_essential(p, pc));
}
