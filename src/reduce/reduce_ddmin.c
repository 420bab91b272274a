/* Passage — the delta-debugging loop of the reducer (reduce_internal.h):
 * Zeller's ddmin in its "remove a chunk" form, over a list its caller
 * re-derives after each success (the items are IR nodes, rebuilt by every
 * accepted candidate). */
#include "reduce/reduce_internal.h"

int psgi_reduce_ddmin(void *user, psgi_ddmin_attempt attempt, psgi_ddmin_length length) {
  size_t n = length(user);
  size_t chunk = n > 1 ? (n + 1) / 2 : 1;
  int accepted = 0;
  while (length(user) > 0) {
    bool any = false;
    /* A sweep: each chunk in turn; after a success the next items moved
     * down to `i`, so `i` stays. */
    for (size_t i = 0; i < length(user);) {
      size_t len = length(user), c = chunk < len - i ? chunk : len - i;
      int r = attempt(user, i, c);
      if (r < 0) return r;
      if (r > 0) accepted++, any = true;
      else i += c;
    }
    if (chunk == 1 && !any) break;
    if (chunk > 1) chunk /= 2;
  }
  return accepted;
}
