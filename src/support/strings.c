/* Passage — string helpers shared by every "did you mean" message (unknown
 * ops, passes, config keys). */
#include "support/support.h"

size_t psgi_edit_distance(const char *a, const char *b, size_t cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 256 || lb > 256) return cap + 1;
  if ((la > lb ? la - lb : lb - la) > cap) return cap + 1;
  size_t row[257];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0], best = row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t v = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < v) v = up + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      row[j] = v;
      diag = up;
      if (v < best) best = v;
    }
    if (best > cap) return cap + 1;
  }
  return row[lb];
}

const char *psgi_closest(const char *word, const char *const *cands, size_t n) {
  size_t cap = strlen(word) / 3 + 1, best = cap + 1;
  const char *pick = NULL;
  for (size_t i = 0; i < n; i++) {
    size_t d = psgi_edit_distance(word, cands[i], cap);
    if (d < best) {
      best = d;
      pick = cands[i];
    }
  }
  return pick;
}
