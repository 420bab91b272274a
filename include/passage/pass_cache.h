/* Passage — the per-function pass cache (docs/pass-infra.md "Pass cache"):
 * with the config option passage.pass_cache set to a directory (`passage opt
 * --pass-cache DIR`), a cacheable function or prim-func pass looks up each
 * function's result there before running its callback, and stores it after.
 * Consecutive cacheable passes of a Sequential are one lookup per function
 * (a chain). The key covers the function's structure, the passes and their
 * options, the PassContext and the library build, so a hit never changes
 * the output. */
#ifndef PASSAGE_PASS_CACHE_H
#define PASSAGE_PASS_CACHE_H

#include "passage/pass.h"

PSG_BEGIN_DECLS

/* Declares that the result of `p`'s per-function callback depends only on
 * the function, its global name, the signatures of the globals it calls,
 * the pass's options and the PassContext's opt level and config: nothing
 * else of the module, no global state, no callback a user can register;
 * and that it keeps the function's type (consecutive cacheable passes are
 * cached as one chain, which relies on the callees' types not moving). A
 * registered pass takes this from its declaration (psg_pass_decl.cacheable);
 * a pass made by psg_create_function_pass / psg_create_prim_func_pass is not
 * cacheable unless its creator says so here (it is then keyed by its PassInfo
 * name). No effect on module passes and Sequentials. NULL-safe. */
PSG_API void psg_pass_set_cacheable(psg_pass *p, bool cacheable);
PSG_API bool psg_pass_is_cacheable(const psg_pass *p);

/* What the cache did for the pass runs under one PassContext, counted since
 * it was made (one count per function looked up, per pass or per chain):
 *   HITS      results taken from the cache
 *   MISSES    looked up, not found (or found stale), computed
 *   STORES    results written to the cache
 *   CORRUPT   entries that could not be read back (a miss with a warning)
 *   BYPASSED  functions of a cacheable pass the cache could not key (they
 *             call an op registered at run time, or the module has type
 *             definitions), and results not stored because their text does
 *             not parse back to an equal function (a miss whose run left
 *             diagnostics is not stored either, and not counted here) */
enum {
  PSG_PASS_CACHE_HITS = 0,
  PSG_PASS_CACHE_MISSES = 1,
  PSG_PASS_CACHE_STORES = 2,
  PSG_PASS_CACHE_CORRUPT = 3,
  PSG_PASS_CACHE_BYPASSED = 4
};
/* The count `which` (a PSG_PASS_CACHE_* value; 0 for any other value). */
PSG_API uint64_t psg_pass_context_cache_count(const psg_pass_context *pc, int which);

PSG_END_DECLS
#endif
