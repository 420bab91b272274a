/* Passage — module properties (docs/pass-infra.md "Module properties"):
 * facts about an immutable module that the runner records and reads, in
 * place of a cache of run history. A property is one bit (TYPED, the normal
 * forms, FUSED); a registered pass's spec ("Name{options}", interned) is a
 * fact too: "this pass returned this very module". Both only grow, like a
 * node's checked_type, so adding to a shared module is allowed; the updates
 * are atomic once the process has threads. */
#include "pass/pass_internal.h"

/* The pass that establishes each property, by registry name: resolved
 * through the registry when a pass is built, so a user who registers
 * "InferType" again replaces it here too. Index = bit position. */
static const char *const establisher_names[PSGI_NUM_PROPS] = {
    "InferType", "ToANormalForm", "ToGraphNormalForm", "ToBasicBlockNormalForm", "FuseOps",
};
static const char *const property_names[PSGI_NUM_PROPS] = {"typed", "anf", "gnf", "bbnf", "fused"};

const char *psg_property_name(unsigned prop) {
  for (int i = 0; i < PSGI_NUM_PROPS; i++)
    if (prop == 1u << i) return property_names[i];
  return NULL;
}

unsigned psgi_properties_established_by(const char *name) {
  unsigned bits = 0;
  for (int i = 0; i < PSGI_NUM_PROPS; i++)
    if (!strcmp(establisher_names[i], name)) bits |= 1u << i;
  return bits;
}

unsigned psg_module_properties(const psg_module *mod) {
  if (!mod) return 0;
  if (psgi_single_threaded()) return mod->props;
  return __atomic_load_n(&mod->props, __ATOMIC_ACQUIRE);
}

void psgi_module_add_properties(psg_module *mod, unsigned bits) {
  if (!bits || (psg_module_properties(mod) & bits) == bits) return;
  if (psgi_single_threaded())
    mod->props |= bits;
  else
    __atomic_fetch_or(&mod->props, bits, __ATOMIC_RELEASE);
}

bool psgi_module_has_spec(const psg_module *mod, const char *spec) {
  const psgi_spec_node *s =
      psgi_single_threaded() ? mod->specs : __atomic_load_n(&mod->specs, __ATOMIC_ACQUIRE);
  for (; s; s = s->next)
    if (s->spec == spec) return true;
  return false;
}

/* Pushes at the head; a concurrent push of the same spec may record it twice,
 * which costs a node and changes no answer. */
psg_status psgi_module_add_spec(psg_module *mod, const char *spec) {
  if (psgi_module_has_spec(mod, spec)) return PSG_OK;
  psgi_spec_node *n = psgi_alloc(mod->ctx, sizeof *n);
  if (!n) return psgi_nomem(mod->ctx);
  n->spec = spec;
  if (psgi_single_threaded()) {
    n->next = mod->specs;
    mod->specs = n;
    return PSG_OK;
  }
  n->next = __atomic_load_n(&mod->specs, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&mod->specs, &n->next, n, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
  return PSG_OK;
}

/* Properties whose establishing pass this thread is building right now: a
 * registered "InferType" that is itself a function pass would otherwise need
 * an InferType to be built first. Build time only; never read by a run. */
static _Thread_local unsigned building_establisher;

psg_status psgi_pass_resolve_ensure(psg_pass *p) {
  unsigned want = (p->needs | p->result_needs) & ~p->establishes;
  for (int b = 0; b < PSGI_NUM_PROPS; b++) {
    unsigned bit = 1u << b;
    if (!(want & bit) || p->ensure[b] || (building_establisher & bit)) continue;
    const char *name = establisher_names[b];
    if (!psgi_registry_find(p->ctx, name)) continue; /* none registered: nothing to run */
    building_establisher |= bit;
    psg_status st = psg_pass_get(p->ctx, name, NULL, &p->ensure[b]);
    building_establisher &= ~bit;
    if (st) return st;
    p->ensure[b]->essential = true; /* run for correctness: opt-bisect never skips it */
  }
  return PSG_OK;
}
