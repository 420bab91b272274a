/* Passage — blocked layouts for type relations (ops/layout_blocked.h). */
#include <ctype.h>
#include <string.h>
#include "ops/layout_blocked.h"

bool psgi_blocked_parse(const char *s, psgi_blocked_layout *l) {
  l->n = l->nprimal = 0;
  for (const char *p = s; *p;) {
    int64_t f = 0;
    while (isdigit((unsigned char)*p) && f < 1000000000) f = f * 10 + (*p++ - '0');
    char c = *p++;
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    if ((!upper && !lower) || (upper && f) || (lower && f <= 0) || l->n >= PSG_MAX_RANK) return false;
    char up = (char)toupper((unsigned char)c);
    for (int i = 0; i < l->n; i++)
      if (l->axis[i] == up && (l->factor[i] > 0) == lower) return false;
    l->axis[l->n] = up;
    l->factor[l->n++] = lower ? f : 0;
    if (upper) l->primal[l->nprimal++] = up;
  }
  l->primal[l->nprimal] = '\0';
  for (int i = 0; i < l->n; i++)
    if (l->factor[i] && !strchr(l->primal, l->axis[i])) return false;
  return true;
}

bool psgi_blocked_is_split(const psgi_blocked_layout *l) { return l->n != l->nprimal; }

/* The factor of the sub-axis of letter c, or 0. */
static int64_t factor_of(const psgi_blocked_layout *l, char c) {
  for (int i = 0; i < l->n; i++)
    if (l->axis[i] == c && l->factor[i]) return l->factor[i];
  return 0;
}

void psgi_blocked_to_primal(const psgi_blocked_layout *l, const int64_t *dims, int64_t *primal) {
  int k = 0;
  for (int i = 0; i < l->n; i++) {
    if (l->factor[i]) continue;
    int64_t d = dims[i], f = factor_of(l, l->axis[i]);
    primal[k++] = d == PSG_DIM_UNKNOWN || !f ? d : d * f;
  }
}

bool psgi_blocked_from_primal(const psgi_blocked_layout *l, const int64_t *primal, int64_t *dims) {
  for (int i = 0; i < l->n; i++) {
    if (l->factor[i]) {
      dims[i] = l->factor[i];
      continue;
    }
    int64_t d = primal[strchr(l->primal, l->axis[i]) - l->primal], f = factor_of(l, l->axis[i]);
    if (f && d != PSG_DIM_UNKNOWN && d % f) return false;
    dims[i] = f && d != PSG_DIM_UNKNOWN ? d / f : d;
  }
  return true;
}
