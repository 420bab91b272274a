/* Passage — validate-each, translation validation per pass (issue 20 item 1,
 * docs/pass-infra.md "Validate each"). With the config testing.validate_each
 * = N > 0, the run function calls psgi_validate_each after every pass that
 * changed the module: @main of the input and of the result run on N input
 * sets with the reference interpreter (Relay; PrimFuncs called through
 * call_lowered on the TIR interpreter) and the outputs are compared
 * (validate_compare.c). The result's outputs are kept as the next pass's
 * "before", so each changed pass costs one interpreter run. A difference
 * fails the pass as any error does: its input stays as it was. */
#include "interp/interp_internal.h"
#include "pass/validate_internal.h"
#include "passage/tensor.h"

/* xorshift64*: the random inputs, reproducible from the seed. */
static uint64_t next_random(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static void run_free(psg_ctx *ctx, psgi_validate_run *r) {
  if (!r) return;
  for (size_t i = 0; r->inputs && i < r->num_sets * r->num_params; i++) psg_tensor_release(r->inputs[i]);
  for (size_t i = 0; r->outputs && i < r->num_sets * r->num_outputs; i++) psg_tensor_release(r->outputs[i]);
  psgi_free(ctx, r->inputs);
  psgi_free(ctx, r->outputs);
  psg_module_release(r->mod);
  psgi_free(ctx, r);
}

/* A run of `mod` with room for its inputs, or NULL on OOM. */
static psgi_validate_run *run_new(psg_ctx *ctx, psg_module *mod, size_t num_sets, size_t num_params) {
  psgi_validate_run *r = psgi_calloc(ctx, sizeof *r);
  if (!r) return NULL;
  psg_module_retain(mod);
  r->mod = mod;
  r->runnable = true;
  r->num_sets = num_sets;
  r->num_params = num_params;
  size_t n = num_sets * num_params;
  r->inputs = psgi_calloc(ctx, (n ? n : 1) * sizeof *r->inputs);
  if (!r->inputs) run_free(ctx, r), r = NULL;
  return r;
}

/* Random values for a parameter of type `t`: uniform in [-1, 1) for floats,
 * [0, 10) for integers (valid indices for small axes), 0/1 for booleans.
 * PSG_ERR_UNSUPPORTED when no tensor of `t` can be made (why says so). */
static psg_status random_tensor(psg_ctx *ctx, const psg_type *t, uint64_t *seed, psg_tensor **out, psgi_buf *why) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) return psgi_buf_puts(why, "is not a tensor"), PSG_ERR_UNSUPPORTED;
  int nd = psg_type_ndim(t), dt = psg_type_dtype(t);
  int64_t shape[PSG_MAX_RANK];
  for (int i = 0; i < nd; i++)
    if ((shape[i] = psg_type_dim(t, i)) < 0)
      return psgi_buf_puts(why, "has a dynamic shape"), PSG_ERR_UNSUPPORTED;
  psg_status st = psg_tensor_create(ctx, dt, shape, nd, NULL, out);
  if (st) return st == PSG_ERR_NOMEM ? st : (psgi_buf_puts(why, "is too large"), PSG_ERR_UNSUPPORTED);
  void *d = (void *)psg_tensor_data(*out);
  for (int64_t i = 0, n = psg_tensor_numel(*out); i < n; i++) {
    double u = (double)(next_random(seed) >> 11) / 9007199254740992.0;
    switch (dt) {
    case PSG_DTYPE_FLOAT32: ((float *)d)[i] = (float)(u * 2 - 1); break;
    case PSG_DTYPE_FLOAT64: ((double *)d)[i] = u * 2 - 1; break;
    case PSG_DTYPE_INT8: ((int8_t *)d)[i] = (int8_t)(u * 10); break;
    case PSG_DTYPE_INT16: ((int16_t *)d)[i] = (int16_t)(u * 10); break;
    case PSG_DTYPE_INT32: ((int32_t *)d)[i] = (int32_t)(u * 10); break;
    case PSG_DTYPE_INT64: ((int64_t *)d)[i] = (int64_t)(u * 10); break;
    case PSG_DTYPE_UINT8: ((uint8_t *)d)[i] = (uint8_t)(u * 10); break;
    case PSG_DTYPE_UINT16: ((uint16_t *)d)[i] = (uint16_t)(u * 10); break;
    case PSG_DTYPE_UINT32: ((uint32_t *)d)[i] = (uint32_t)(u * 10); break;
    case PSG_DTYPE_UINT64: ((uint64_t *)d)[i] = (uint64_t)(u * 10); break;
    case PSG_DTYPE_BOOL: ((uint8_t *)d)[i] = u < 0.5; break;
    default:
      psg_tensor_release(*out);
      *out = NULL;
      psgi_buf_printf(why, "is %s (no random values of that dtype)", psg_dtype_name(dt));
      return PSG_ERR_UNSUPPORTED;
    }
  }
  return PSG_OK;
}

/* Whether array `t` fits parameter type `want`: its dtype, rank and every
 * static dim. */
static bool fits(const psg_type *want, const psg_tensor *t) {
  if (psg_type_kind(want) != PSG_TYPE_TENSOR) return false;
  if (psg_type_dtype(want) != psg_tensor_dtype(t) || psg_type_ndim(want) != psg_tensor_ndim(t)) return false;
  for (int i = 0; i < psg_type_ndim(want); i++)
    if (psg_type_dim(want, i) >= 0 && psg_type_dim(want, i) != psg_tensor_dim(t, i)) return false;
  return true;
}

static void describe_type(psgi_buf *b, const psg_type *t) {
  if (psg_type_kind(t) != PSG_TYPE_TENSOR) return (void)psgi_buf_puts(b, "a value that is not a tensor");
  psgi_buf_printf(b, "%s (", psg_dtype_name(psg_type_dtype(t)));
  for (int i = 0; i < psg_type_ndim(t); i++)
    psg_type_dim(t, i) < 0 ? psgi_buf_printf(b, "%s?", i ? ", " : "")
                           : psgi_buf_printf(b, "%s%lld", i ? ", " : "", (long long)psg_type_dim(t, i));
  psgi_buf_putc(b, ')');
}

static void describe_tensor(psgi_buf *b, const psg_tensor *t) {
  psgi_buf_printf(b, "%s (", psg_dtype_name(psg_tensor_dtype(t)));
  for (int i = 0; i < psg_tensor_ndim(t); i++) psgi_buf_printf(b, "%s%lld", i ? ", " : "", (long long)psg_tensor_dim(t, i));
  psgi_buf_putc(b, ')');
}

/* The array given for parameter `param` by testing.validate_each.inputs
 * ("NAME=FILE.npy", NAME with or without '%'), read and checked against the
 * parameter's type; *out stays NULL when none is given. */
static psg_status given_input(psg_ctx *ctx, psg_pass_context *pc, const psg_expr *param, psg_tensor **out) {
  *out = NULL;
  psg_attr *list = psg_pass_context_get_config(pc, "testing.validate_each.inputs");
  const char *name = psg_var_name(param);
  size_t nlen = strlen(name);
  for (size_t i = list ? psg_attr_list_len(list) : 0; i-- > 0;) { /* the last one of a name wins */
    psg_attr *item = psg_attr_list_get(list, i);
    const char *s = psg_attr_kind(item) == PSG_ATTR_STRING ? psg_attr_get_string(item) : NULL;
    const char *eq = s ? strchr(s, '=') : NULL;
    if (!eq) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "testing.validate_each.inputs: expected NAME=FILE.npy");
    const char *n = s[0] == '%' ? s + 1 : s;
    if ((size_t)(eq - n) != nlen || strncmp(n, name, nlen)) continue;
    psg_status st = psg_tensor_read_npy(ctx, eq + 1, out);
    if (st) return st;
    const psg_type *want = psg_var_type(param);
    if (want && !fits(want, *out)) {
      psgi_buf b;
      psgi_buf_init(&b, ctx);
      describe_type(&b, want);
      psgi_buf_puts(&b, " but the array is ");
      describe_tensor(&b, *out);
      st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "validate-each: input %%%s from %s: @main takes %.*s", name,
                        eq + 1, (int)b.len, b.data ? b.data : "");
      psgi_buf_fini(&b);
      psg_tensor_release(*out), *out = NULL;
      return st;
    }
    return PSG_OK;
  }
  return PSG_OK;
}

/* Every input name given must be a parameter of @main. */
static psg_status check_input_names(psg_ctx *ctx, psg_pass_context *pc, const psg_expr *fn) {
  psg_attr *list = psg_pass_context_get_config(pc, "testing.validate_each.inputs");
  for (size_t i = 0; list && i < psg_attr_list_len(list); i++) {
    psg_attr *item = psg_attr_list_get(list, i);
    const char *s = psg_attr_kind(item) == PSG_ATTR_STRING ? psg_attr_get_string(item) : "";
    const char *n = s[0] == '%' ? s + 1 : s, *eq = strchr(n, '=');
    size_t len = eq ? (size_t)(eq - n) : strlen(n);
    bool found = false;
    for (size_t k = 0; k < psg_function_num_params(fn) && !found; k++) {
      const char *pn = psg_var_name(psg_function_get_param(fn, k));
      found = strlen(pn) == len && !strncmp(pn, n, len);
    }
    if (!found) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "validate-each: @main has no parameter %%%.*s", (int)len, n);
  }
  return PSG_OK;
}

/* The inputs of r->mod's @main: the given arrays, random values for the
 * others. A module that cannot be run this way is not runnable (`why` says
 * why); a bad given input is an error. */
static psg_status make_inputs(psg_ctx *ctx, psg_pass_context *pc, const psg_expr *fn, psgi_validate_run *r,
                              psgi_buf *why) {
  psg_status st = check_input_names(ctx, pc, fn);
  uint64_t base = (uint64_t)psg_pass_context_config_int(pc, "testing.validate_each.seed");
  for (size_t k = 0; !st && k < r->num_params; k++) {
    const psg_expr *param = psg_function_get_param(fn, k);
    psg_tensor *given = NULL;
    if ((st = given_input(ctx, pc, param, &given)) != PSG_OK) break;
    for (size_t s = 0; s < r->num_sets; s++) {
      if (given) psg_tensor_retain(given);
      r->inputs[s * r->num_params + k] = given;
    }
    psg_tensor_release(given);
  }
  /* Random values set by set, parameter by parameter, from one stream per
   * set, so set s is the same whatever N is. */
  for (size_t s = 0; !st && s < r->num_sets; s++) {
    uint64_t seed = (base + s + 1) * 0x9e3779b97f4a7c15ull + 1;
    for (size_t k = 0; !st && k < r->num_params; k++) {
      psg_tensor **slot = &r->inputs[s * r->num_params + k];
      if (*slot) continue;
      const psg_expr *param = psg_function_get_param(fn, k);
      size_t mark = why->len;
      psgi_buf_printf(why, "parameter %%%s ", psg_var_name(param));
      st = random_tensor(ctx, psg_var_type(param), &seed, slot, why);
      if (st == PSG_ERR_UNSUPPORTED) {
        const psg_type *t = psg_var_type(param);
        if (t && psg_type_kind(t) == PSG_TYPE_TENSOR)
          psgi_buf_printf(why, ": give it with --input %s=FILE.npy", psg_var_name(param));
        r->runnable = false;
        return PSG_OK;
      }
      why->len = mark;
    }
  }
  return st;
}

/* Runs r->mod's @main on every input set. When the interpreter fails, the
 * run is not runnable and `why` holds its message (its diagnostics are
 * dropped: the caller decides what the failure means). */
static psg_status run_main(psg_ctx *ctx, psg_pass_context *pc, psgi_validate_run *r, psgi_buf *why) {
  int64_t depth = psg_pass_context_config_int(pc, "relay.interp.max_call_depth");
  int64_t bytes = psg_pass_context_config_int(pc, "passage.interp.max_bytes");
  int64_t steps = psg_pass_context_config_int(pc, "passage.interp.max_steps");
  psgi_eval_limits limits = {depth > 0 ? (size_t)depth : 1, bytes > 0 ? (uint64_t)bytes : 0,
                             steps > 0 ? (uint64_t)steps : 1};
  for (size_t s = 0; s < r->num_sets; s++) {
    size_t mark = psg_ctx_diag_count(ctx), n = 0;
    psg_tensor **outs = NULL;
    psg_status st = psgi_eval_limited(ctx, r->mod, "main", r->inputs + s * r->num_params, r->num_params, &limits,
                                      &outs, &n);
    if (st == PSG_ERR_NOMEM) return st;
    if (st) {
      const psg_diag *d = psg_ctx_diag_count(ctx) > mark ? psg_ctx_get_diag(ctx, psg_ctx_diag_count(ctx) - 1) : NULL;
      psgi_buf_printf(why, "on validation input %zu: %s", s, d ? psg_diag_message(d) : psg_status_str(st));
      psgi_diag_truncate(ctx, mark);
      r->runnable = false;
      return PSG_OK;
    }
    if (!r->outputs) {
      r->num_outputs = n;
      size_t all = r->num_sets * n;
      r->outputs = psgi_calloc(ctx, (all ? all : 1) * sizeof *r->outputs);
    } else if (n != r->num_outputs) { /* cannot happen for one module; kept safe */
      r->runnable = false;
      psgi_buf_puts(why, "@main gives a different number of outputs per input");
    }
    for (size_t k = 0; k < n; k++) {
      if (r->outputs && r->runnable) r->outputs[s * n + k] = outs[k];
      else psg_tensor_release(outs[k]);
    }
    psg_free(outs);
    if (!r->outputs) return psgi_nomem(ctx);
    if (!r->runnable) return PSG_OK;
  }
  return PSG_OK;
}

/* @main of `mod` run on fresh inputs (like == NULL) or on the inputs of
 * `like`. *out is the run, runnable or not (then `why` says why). */
static psg_status evaluate(psg_ctx *ctx, psg_pass_context *pc, psg_module *mod, const psgi_validate_run *like,
                           psgi_validate_run **out, psgi_buf *why) {
  *out = NULL;
  const psg_expr *fn = psg_module_lookup(mod, "main");
  size_t sets = like ? like->num_sets : (size_t)psg_pass_context_config_int(pc, "testing.validate_each");
  size_t params = fn && psg_expr_kind(fn) == PSG_EXPR_FUNCTION ? psg_function_num_params(fn) : 0;
  psgi_validate_run *r = run_new(ctx, mod, sets, params);
  if (!r) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  if (!fn || psg_expr_kind(fn) != PSG_EXPR_FUNCTION) {
    psgi_buf_puts(why, "the module has no Relay function @main");
    r->runnable = false;
  } else if (like && like->num_params != params) {
    psgi_buf_printf(why, "@main takes %zu parameters after the pass but %zu before", params, like->num_params);
    r->runnable = false;
  } else if (like) {
    for (size_t i = 0; i < sets * params; i++) psg_tensor_retain(r->inputs[i] = like->inputs[i]);
  } else {
    st = make_inputs(ctx, pc, fn, r, why);
  }
  if (!st && r->runnable) st = run_main(ctx, pc, r, why);
  if (st) run_free(ctx, r), r = NULL;
  *out = r;
  return st;
}

/* "@f, @g and 3 more": the functions `out` holds that `in` does not hold
 * as the same node (changed or new). */
static void changed_functions(const psg_module *in, const psg_module *out, psgi_buf *b) {
  size_t shown = 0, more = 0;
  for (size_t i = 0; i < out->n; i++) {
    const psgi_module_entry *e = &out->entries[i];
    ptrdiff_t j = psg_module_find(in, e->gv->u.gvar.name);
    if (j >= 0 && in->entries[j].func == e->func && in->entries[j].prim == e->prim) continue;
    if (shown < 4) psgi_buf_printf(b, "%s@%s", shown ? ", " : "", e->gv->u.gvar.name), shown++;
    else more++;
  }
  if (more) psgi_buf_printf(b, " and %zu more", more);
  if (!shown) psgi_buf_puts(b, "removed functions only");
}

/* Takes the cached run of `mod` from pc (NULL: none). */
static psgi_validate_run *take_cached(psg_pass_context *pc, const psg_module *mod) {
  pthread_mutex_lock(&pc->lock);
  psgi_validate_run *r = pc->validate && pc->validate->mod == mod ? pc->validate : NULL;
  if (r) pc->validate = NULL;
  pthread_mutex_unlock(&pc->lock);
  return r;
}

static void put_cached(psg_pass_context *pc, psgi_validate_run *r) {
  pthread_mutex_lock(&pc->lock);
  psgi_validate_run *old = pc->validate;
  pc->validate = r;
  pthread_mutex_unlock(&pc->lock);
  run_free(pc->ctx, old);
}

void psgi_validate_run_begin(psg_pass_context *pc) { __atomic_fetch_add(&pc->validate_runs, 1, __ATOMIC_ACQ_REL); }

void psgi_validate_run_end(psg_pass_context *pc) {
  if (__atomic_sub_fetch(&pc->validate_runs, 1, __ATOMIC_ACQ_REL) == 0) put_cached(pc, NULL);
}

/* A module that does not run under validation: a warning once (the runs
 * after it inherit "not runnable" without trying again). */
static void warn_not_validated(psg_pass *p, const psgi_buf *why) {
  psgi_diag_add(p->ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, p->info->name,
                "validate-each: @main cannot run before pass '%s' (%.*s): passes are not validated from here on",
                p->info->name, (int)why->len, why->data ? why->data : "");
}

psg_status psgi_validate_each(psg_pass *p, psg_pass_context *pc, psg_module *in, psg_module *out) {
  /* A Sequential's children were validated as they ran. */
  if (p->kind == PSG_PASS_SEQUENTIAL || in == out || !out) return PSG_OK;
  if (psg_pass_context_config_int(pc, "testing.validate_each") <= 0) return PSG_OK;
  psg_ctx *ctx = p->ctx;
  psgi_buf why;
  psgi_buf_init(&why, ctx);
  psgi_validate_run *before = take_cached(pc, in), *after = NULL;
  psg_status st = before ? PSG_OK : evaluate(ctx, pc, in, NULL, &before, &why);
  if (!st && !before->runnable) {
    if (why.len) warn_not_validated(p, &why);
    /* `out` inherits "not runnable" (no reason: warned already). */
    if ((after = run_new(ctx, out, 0, 0)) == NULL) st = psgi_nomem(ctx);
    else after->runnable = false;
    goto done;
  }
  if (!st) st = evaluate(ctx, pc, out, before, &after, &why);
  if (st) goto done;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  bool reassoc = p->reassociates;
  double rtol = reassoc ? psg_pass_context_config_float(pc, "testing.validate_each.reassoc_rtol")
                        : psg_pass_context_config_float(pc, "testing.validate_each.rtol");
  if (!after->runnable) {
    psgi_buf_puts(&b, "@main no longer runs ");
    psgi_buf_append(&b, why.data, why.len);
  } else if (!psgi_validate_outputs_differ(before, after, rtol, reassoc, &b)) {
    psgi_buf_fini(&b);
    goto done;
  }
  psgi_buf_puts(&b, " (the pass changed ");
  changed_functions(in, out, &b);
  psgi_buf_putc(&b, ')');
  st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_PASS_FAILED, NULL, 0, 0, NULL, 0, p->info->name,
                     "validate-each: after pass '%s': %.*s", p->info->name, (int)b.len, b.data ? b.data : "");
  if (b.failed) st = psgi_nomem(ctx);
  psgi_buf_fini(&b);
  run_free(ctx, after), after = NULL;
done:
  psgi_buf_fini(&why);
  run_free(ctx, before);
  if (!st && after) put_cached(pc, after);
  else run_free(ctx, after);
  return st;
}

void psg_pass_set_reassociating(psg_pass *p, bool reassociating) {
  if (p) p->reassociates = reassociating;
}

bool psg_pass_is_reassociating(const psg_pass *p) { return p && p->reassociates; }
