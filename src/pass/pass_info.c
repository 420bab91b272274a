/* Passage — PassInfo (tvm-behavior §1.2): name, opt_level and the passes
 * that must run before this one. Immutable and reference counted. */
#include "pass/pass_internal.h"

char *psgi_strdup(psg_ctx *ctx, const char *s) { return psgi_strndup(ctx, s, strlen(s)); }

bool psgi_str_vec_has(const psgi_str_vec *v, const char *s) {
  for (size_t i = 0; i < v->len; i++)
    if (strcmp(v->data[i], s) == 0) return true;
  return false;
}

void psgi_str_vec_free(psg_ctx *ctx, psgi_str_vec *v) {
  for (size_t i = 0; i < v->len; i++) psgi_free(ctx, v->data[i]);
  PSGI_VEC_FREE(ctx, v);
}

psg_status psg_pass_info_create(psg_ctx *ctx, const char *name, int opt_level,
                                const char *const *required, size_t num_required,
                                psg_pass_info **out) {
  *out = NULL;
  if (!name || !*name || (num_required && !required))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a PassInfo needs a name");
  for (size_t i = 0; i < num_required; i++)
    if (!required[i] || !*required[i])
      return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "pass '%s' lists an empty required pass", name);
  psg_pass_info *info = psgi_calloc(ctx, sizeof *info);
  if (!info) return psgi_nomem(ctx);
  info->refcount = 1;
  info->ctx = ctx;
  info->opt_level = opt_level;
  info->name = psgi_strdup(ctx, name);
  info->required = num_required ? psgi_calloc(ctx, num_required * sizeof(char *)) : NULL;
  bool ok = info->name && (!num_required || info->required);
  for (size_t i = 0; ok && i < num_required; i++) {
    ok = (info->required[i] = psgi_strdup(ctx, required[i])) != NULL;
    info->num_required = i + 1;
  }
  psgi_ctx_object_born(ctx);
  if (!ok) {
    psg_pass_info_release(info);
    return psgi_nomem(ctx);
  }
  *out = info;
  return PSG_OK;
}

void psg_pass_info_retain(psg_pass_info *info) {
  if (info) psgi_ref_inc(&info->refcount);
}

void psg_pass_info_release(psg_pass_info *info) {
  if (!info || !psgi_ref_dec(&info->refcount)) return;
  psg_ctx *ctx = info->ctx;
  for (size_t i = 0; i < info->num_required; i++) psgi_free(ctx, info->required[i]);
  psgi_free(ctx, info->required);
  psgi_free(ctx, info->name);
  psgi_free(ctx, info);
  psgi_ctx_object_died(ctx);
}

const char *psg_pass_info_name(const psg_pass_info *info) { return info->name; }
int psg_pass_info_opt_level(const psg_pass_info *info) { return info->opt_level; }
size_t psg_pass_info_num_required(const psg_pass_info *info) { return info->num_required; }
const char *psg_pass_info_required(const psg_pass_info *info, size_t i) {
  return i < info->num_required ? info->required[i] : NULL;
}

char *psg_pass_info_to_string(const psg_pass_info *info) {
  psgi_buf b;
  psgi_buf_init(&b, info->ctx);
  psgi_buf_printf(&b, "The meta data of the pass - pass name: %s, opt_level: %d, required passes: [",
                  info->name, info->opt_level);
  if (info->num_required) {
    psgi_buf_putc(&b, '\n');
    for (size_t i = 0; i < info->num_required; i++) psgi_buf_printf(&b, "%s, ", info->required[i]);
  }
  psgi_buf_puts(&b, "]\n");
  char *s = psgi_buf_detach_libc(&b, NULL);
  if (!s) psgi_buf_fini(&b);
  return s;
}
