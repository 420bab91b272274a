/* Passage — the one run function (tvm-behavior §2.2, docs/pass-infra.md):
 * every pass kind, every Sequential child, every `required` pass and every
 * property-establishing pass goes through psgi_pass_call, which does, in
 * order: should_run and the before-hooks, the properties the pass needs, the
 * body, verification, the properties of the result, the after-hooks (or
 * after-failed). What a call does is read from the pass and the module.
 * Around it all, the reproducer hook (reproducer.c) keeps the input to
 * write out if the call fails. */
#include "pass/pass_internal.h"

/* Gives *mod every property of `want` it lacks, by running the establishing
 * pass resolved when `p` was built (instrumented, not gated by PassEnabled),
 * and records the property on the result. */
static psg_status ensure(psg_pass *p, unsigned want, psg_module **mod, psg_pass_context *pc) {
  unsigned missing = want & ~psg_module_properties(*mod);
  for (int b = 0; missing && b < PSGI_NUM_PROPS; b++) {
    if (!(missing & (1u << b)) || !p->ensure[b]) continue;
    psg_module *next = NULL;
    psg_status st = psgi_pass_call(p->ensure[b], *mod, pc, &next);
    if (st) return st;
    psgi_module_add_properties(next, 1u << b);
    psg_module_release(*mod);
    *mod = next;
    missing &= ~psg_module_properties(next);
  }
  return PSG_OK;
}

psg_status psgi_pass_ensure(psg_pass *p, unsigned want, psg_module **mod, psg_pass_context *pc) {
  return ensure(p, want, mod, pc);
}

static psg_status kind_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  switch (p->kind) {
  case PSG_PASS_MODULE: return psgi_module_body(p, mod, pc, out);
  case PSG_PASS_FUNCTION:
  case PSG_PASS_PRIM_FUNC: return psgi_per_function_body(p, mod, pc, out);
  case PSG_PASS_SEQUENTIAL: return psgi_sequential_body(p, mod, pc, out);
  }
  return psg_ctx_fail(p->ctx, PSG_ERR_INTERNAL, "unknown pass kind %d", p->kind);
}

/* A built-in pass's own body may run in exclusive mode (support.h); a
 * user's never does (its code may start threads). A Sequential's body is
 * its children's calls, each deciding for itself. */
static psg_status body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  bool was = p->kind == PSG_PASS_SEQUENTIAL ? false : psgi_exclusive_begin(p->trusted);
  psg_status st = kind_body(p, mod, pc, out);
  if (p->kind != PSG_PASS_SEQUENTIAL) psgi_exclusive_end(was);
  return st;
}

/* Checks after the body: testing.immutable_module (the input's structural
 * hash is unchanged); then verify-each (verify_each.c) and validate-each
 * (validate_each.c). */
static psg_status verify(psg_pass *p, const psg_module *in, uint64_t in_hash, bool immutable) {
  if (immutable && psg_module_structural_hash(in) != in_hash)
    return psg_ctx_fail(p->ctx, PSG_ERR_PASS_FAILED, "Immutable module has been modified in pass: %s", p->info->name);
  return PSG_OK;
}

/* `out` came from `in`: unchanged, it only gains; changed, it keeps what
 * the pass declares it keeps. A registered pass's spec holds for its result,
 * unless opt-bisect skipped part of it (`partial`): then the pass did not
 * do all its work and only what it keeps is known. `same`: out is in; a
 * Sequential that freed its input (departure 243) says false, which is
 * harmless when out is in after all (it gains what it already has). */
static psg_status update_properties(psg_pass *p, unsigned in_props, bool same, psg_module *out, bool partial) {
  unsigned kept = same ? 0 : in_props & p->keeps;
  psgi_module_add_properties(out, kept | (partial ? 0 : p->establishes));
  return p->spec && !partial ? psgi_module_add_spec(out, p->spec) : PSG_OK;
}

static psg_status call(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_ctx *ctx = p->ctx;
  *out = NULL;
  size_t diags_before = psg_ctx_diag_count(ctx);
  /* The caller's reference when it handed it over (hand_over.c), taken
   * first so that nothing run from here sees the slot; released at the end
   * unless it becomes `in` below. */
  psg_module *handed = psgi_pass_take_handed(mod) ? mod : NULL;
  psgi_repro_frame repro;
  psgi_reproducer_enter(&repro, p, mod, pc);
  bool should_run = true;
  psg_status st = psgi_instruments_before(pc, mod, p->info, &should_run);
  if (st || !should_run) {
    if (!st) psg_module_retain(mod), *out = mod; /* skipped: the very same module */
    goto done;
  }
  bool immutable = psg_pass_context_config_bool(pc, "testing.immutable_module");
  uint64_t h0 = immutable ? psg_module_structural_hash(mod) : 0;
  psg_module *in = mod, *ret = NULL;
  uint64_t skips = pc->bisect_skips;
  /* `in` holds the handed reference when nothing reads `mod` after the
   * body (psgi_pass_may_free_input: no after-failed hook, no immutable
   * check), else one of our own and `handed` keeps `mod` alive to the end.
   * A Sequential body is then given `in` and drops it after its first
   * child, so the input is freed once no pass needs it (departure 243);
   * `in` and `mod` may dangle after that body, and nothing below reads
   * them (verify-each and validate-each never look at a Sequential's). */
  bool may_free = psgi_pass_may_free_input(pc);
  if (handed && may_free) handed = NULL;
  else psg_module_retain(in);
  st = ensure(p, p->needs, &in, pc);
  unsigned in_props = psg_module_properties(in);
  bool give = may_free && p->kind == PSG_PASS_SEQUENTIAL;
  if (!st) {
    if (give) psgi_pass_hand_over(in);
    st = body(p, in, pc, &ret);
    if (give && !psgi_pass_handed_back(in)) in = NULL; /* the body's now */
  }
  if (!st) st = verify(p, mod, h0, immutable);
  if (!st) st = psgi_verify_each(p, pc, in, ret);
  if (!st) st = psgi_validate_each(p, pc, in, ret);
  if (!st) st = update_properties(p, in_props, in && ret == in, ret, pc->bisect_skips != skips);
  if (!st) st = ensure(p, p->result_needs, &ret, pc);
  psg_module_release(in);
  if (st) {
    psg_module_release(ret);
    psgi_instruments_after_failed(pc, mod, p->info);
    goto done;
  }
  if ((st = psgi_instruments_after(pc, ret, p->info)) != PSG_OK) {
    psg_module_release(ret);
    goto done;
  }
  *out = ret;
done:
  psg_module_release(handed); /* kept for the hooks, or the call was skipped */
  if (st) {
    if (psg_ctx_diag_count(ctx) == diags_before)
      psg_ctx_fail(ctx, st, "pass '%s' failed: %s", p->info->name, psg_status_str(st));
    psgi_diag_note(ctx, "in pass '%s'", p->info->name);
  }
  psgi_reproducer_leave(&repro, p, st);
  return st;
}

/* opt-bisect (bisect.c) decides first: a skipped pass returns its input
 * before any instrument sees it, as a pass PassEnabled turns off. */
psg_status psgi_pass_call(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  int gate = psgi_bisect_gate(p, pc);
  if (gate == PSGI_BISECT_SKIP) {
    psg_module_retain(mod);
    *out = mod;
    return PSG_OK;
  }
  psg_status st = call(p, mod, pc, out);
  psgi_bisect_ungate(pc, gate);
  return st;
}
