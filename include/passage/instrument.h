/* Passage — pass instruments (tvm-behavior §1.5, §3): a name plus optional
 * callbacks, called by the pass infrastructure in the spec's order; and the
 * built-in instruments (pass timing, IR printing).
 *
 * A callback fails by recording a diagnostic (psg_ctx_fail) and returning a
 * non-zero status; the infrastructure then follows §3.3–§3.6. */
#ifndef PASSAGE_INSTRUMENT_H
#define PASSAGE_INSTRUMENT_H

#include "passage/pass.h"

PSG_BEGIN_DECLS

/* All members optional (NULL = no-op; a missing should_run means "run"). */
typedef struct psg_instrument_callbacks {
  psg_status (*enter_pass_ctx)(void *user, psg_pass_context *pctx);
  psg_status (*exit_pass_ctx)(void *user, psg_pass_context *pctx);
  psg_status (*should_run)(void *user, psg_pass_context *pctx, const psg_module *mod,
                           const psg_pass_info *info, bool *run);
  psg_status (*run_before_pass)(void *user, psg_pass_context *pctx, const psg_module *mod,
                                const psg_pass_info *info);
  /* `mod` is the pass's OUTPUT module. */
  psg_status (*run_after_pass)(void *user, psg_pass_context *pctx, const psg_module *mod,
                               const psg_pass_info *info);
  /* Our addition (MLIR's runAfterPassFailed): the pass failed; `mod` is its
   * unchanged input. A failure here is recorded as a note, not returned. */
  psg_status (*run_after_pass_failed)(void *user, psg_pass_context *pctx, const psg_module *mod,
                                      const psg_pass_info *info);
} psg_instrument_callbacks;

/* The callbacks struct is copied. `free_user` (may be NULL) is called on
 * `user` when the instrument is destroyed. */
PSG_API psg_status psg_instrument_create(psg_ctx *ctx, const char *name,
                                         const psg_instrument_callbacks *cb, void *user,
                                         void (*free_user)(void *), psg_instrument **out);
PSG_API void psg_instrument_retain(psg_instrument *inst);
PSG_API void psg_instrument_release(psg_instrument *inst);
PSG_API const char *psg_instrument_name(const psg_instrument *inst);
PSG_API void *psg_instrument_user(const psg_instrument *inst);

/* Pass timing -------------------------------------------------------------
 * Records a tree of pass executions (a pass run inside another is its child).
 * Unlike TVM the profile belongs to the instrument and survives the context's
 * exit, so it can be rendered afterwards; psg_timing_reset clears it. */
PSG_API psg_status psg_timing_instrument_create(psg_ctx *ctx, psg_instrument **out);
/* TVM's nested format: one line per pass, "\t"*depth + "NAME: Dus [Sus] (T%; P%)". */
PSG_API char *psg_timing_render(const psg_instrument *timing);
/* A flat view: passes aggregated by name, sorted by total time, the top `n`
 * (0 = all): "  total_us  self_us  count  name". */
PSG_API char *psg_timing_render_flat(const psg_instrument *timing, size_t n);
/* The tree as JSON: [{"name":..,"us":..,"self_us":..,"children":[..]}, ..]. */
PSG_API char *psg_timing_render_json(const psg_instrument *timing);
PSG_API void psg_timing_reset(psg_instrument *timing);

/* IR printing ---------------------------------------------------------------
 * Prints the module as text to a sink (the library never prints itself). */
typedef void (*psg_text_sink)(void *user, const char *text, size_t len);
enum {
  PSG_PRINT_IR_BEFORE_ALL = 1,
  PSG_PRINT_IR_AFTER_ALL = 2,
  PSG_PRINT_IR_AFTER_CHANGE = 4,  /* after a pass, only if the structural hash changed */
  PSG_PRINT_IR_AFTER_FAILURE = 8  /* the input of a failed pass */
};
/* `before_names`/`after_names` (NULL-terminated, may be NULL) print before or
 * after passes with exactly these names (TVM's PassPrintingInstrument);
 * `flags` adds the -all / -after-change / -after-failure modes. Headers match
 * TVM: "Before Running Pass: <info>", "After Running Pass: <info>",
 * "Print IR before: NAME", "Print IR after: NAME". */
PSG_API psg_status psg_print_ir_instrument_create(psg_ctx *ctx, const char *const *before_names,
                                                  const char *const *after_names, int flags,
                                                  psg_text_sink sink, void *sink_user,
                                                  psg_instrument **out);

/* TVM's PrintIR pass: a module pass named "PrintIR" at opt_level 0 that sends
 * "PrintIR(<header>):\n<text>" to the sink and returns the same module. */
PSG_API psg_status psg_print_ir_pass_create(psg_ctx *ctx, const char *header, bool show_meta_data,
                                            psg_text_sink sink, void *sink_user, psg_pass **out);

PSG_END_DECLS
#endif
