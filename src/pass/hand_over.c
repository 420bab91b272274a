/* Passage — handing a module reference down the runner (docs/design.md,
 * departure 243). psg_pass_run_take gives the runner the caller's
 * reference to the input, and a Sequential gives each child the reference
 * it holds to the module between them; the runner passes it on to a
 * Sequential body, which drops it once its first child has returned. So a
 * pipeline's input is freed as soon as no pass needs it (when nothing else
 * holds it), not when the run ends: the peak of a long pipeline holds one
 * module and the pass's output, not also the input.
 *
 * The hand-over is one slot per thread: the giver sets it just before a
 * psgi_pass_call on the module, the call takes it (clearing the slot) or
 * leaves it, and the giver asks afterwards whether it still owns the
 * reference. Only the runner's own thread uses it; a call on a worker
 * thread never sees a module handed over on another. */
#include "pass/pass_internal.h"

static _Thread_local psg_module *handed;

void psgi_pass_hand_over(psg_module *mod) { handed = mod; }

bool psgi_pass_take_handed(const psg_module *mod) {
  if (!mod || handed != mod) return false;
  handed = NULL;
  return true;
}

bool psgi_pass_handed_back(const psg_module *mod) {
  bool back = mod && handed == mod;
  handed = NULL;
  return back;
}

/* Whether a call may free its input before it returns: nothing will read
 * the input after the body. An instrument's after-failed hook gets the
 * input of a failed pass, and testing.immutable_module hashes it again
 * after the body (verify-each and validate-each compare a pass's input and
 * output, but never a Sequential's, the only body given the reference).
 * Other hooks see the input before the body or the output after it. */
bool psgi_pass_may_free_input(psg_pass_context *pc) {
  return !psgi_instruments_watch_failures(pc) && !psg_pass_context_config_bool(pc, "testing.immutable_module");
}
