/* Passage — TVM's blocked layouts in type relations (tir Layout and
 * BijectiveLayout's shape maps): "NCHW16c" is the primal layout "NCHW" with
 * C split into C/16 outer and a 16-wide inner axis. A relation written for
 * primal layouts maps the shapes in and out with these. */
#ifndef PSG_OPS_LAYOUT_BLOCKED_H
#define PSG_OPS_LAYOUT_BLOCKED_H

#include "passage/defs.h"
#include "passage/type.h"

typedef struct psgi_blocked_layout {
  int n;                          /* axes of the layout */
  char axis[PSG_MAX_RANK];        /* upper case; a sub-axis has factor > 0 */
  int64_t factor[PSG_MAX_RANK];
  int nprimal;
  char primal[PSG_MAX_RANK + 1];  /* the primal letters in order, NUL-terminated */
} psgi_blocked_layout;

/* Parses `s`; false unless every axis letter is primal at most once and
 * split at most once, with its primal axis present. */
bool psgi_blocked_parse(const char *s, psgi_blocked_layout *l);
/* Whether the layout has any sub-axis. */
bool psgi_blocked_is_split(const psgi_blocked_layout *l);
/* The primal shape (in l->primal order) of a shape in layout l. */
void psgi_blocked_to_primal(const psgi_blocked_layout *l, const int64_t *dims, int64_t *primal);
/* The shape in layout l of a primal shape; false when a factor does not
 * divide its axis. */
bool psgi_blocked_from_primal(const psgi_blocked_layout *l, const int64_t *primal, int64_t *dims);

#endif
