/* passage opt --pass-cache DIR / --pass-cache-stats: the per-function pass
 * cache (docs/pass-infra.md "Pass cache") from the command line. */
#include <string.h>
#include "commands.h"

psg_status cli_set_pass_cache(psg_pass_context *pc, const char *dir) {
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  if (!*dir) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "--pass-cache takes a directory, not ''");
  psg_attr *v = NULL;
  psg_status st = psg_attr_string(ctx, dir, strlen(dir), &v);
  if (!st) st = psg_pass_context_set_config(pc, "passage.pass_cache", v);
  psg_attr_release(v);
  return st;
}

void cli_report_pass_cache(const psg_pass_context *pc, FILE *to) {
  fprintf(to, "pass cache: %llu hits, %llu misses, %llu stored, %llu unusable, %llu bypassed\n",
          (unsigned long long)psg_pass_context_cache_count(pc, PSG_PASS_CACHE_HITS),
          (unsigned long long)psg_pass_context_cache_count(pc, PSG_PASS_CACHE_MISSES),
          (unsigned long long)psg_pass_context_cache_count(pc, PSG_PASS_CACHE_STORES),
          (unsigned long long)psg_pass_context_cache_count(pc, PSG_PASS_CACHE_CORRUPT),
          (unsigned long long)psg_pass_context_cache_count(pc, PSG_PASS_CACHE_BYPASSED));
}
