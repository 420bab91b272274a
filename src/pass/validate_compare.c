/* Passage — validate-each's comparison (issue 20 item 1, docs/pass-infra.md
 * "Validate each"): the outputs of @main after a pass against those before
 * it, element by element. Integers and booleans must be bit-exact; floats
 * within rtol of max(|before|, 0.01). The first output beyond tolerance is
 * described: its index, the largest error and where, the first element that
 * differs with both values. */
#include <math.h>
#include "pass/validate_internal.h"

/* Relative errors are measured against |before|, but never against less
 * than this: an element that should be 0 may come out as 1e-9. */
static const double FLOOR = 1e-2;

static bool is_float(int dtype) { return dtype == PSG_DTYPE_FLOAT32 || dtype == PSG_DTYPE_FLOAT64; }

/* Half-precision outputs are compared bit for bit (no kernel computes in
 * them today). */
static bool is_half(int dtype) { return dtype == PSG_DTYPE_FLOAT16 || dtype == PSG_DTYPE_BFLOAT16; }

/* Element i as a double. */
static double element(const psg_tensor *t, int64_t i) {
  const void *d = psg_tensor_data(t);
  switch (psg_tensor_dtype(t)) {
  case PSG_DTYPE_FLOAT32: return ((const float *)d)[i];
  case PSG_DTYPE_FLOAT64: return ((const double *)d)[i];
  case PSG_DTYPE_INT8: return ((const int8_t *)d)[i];
  case PSG_DTYPE_INT16: return ((const int16_t *)d)[i];
  case PSG_DTYPE_INT32: return ((const int32_t *)d)[i];
  case PSG_DTYPE_INT64: return (double)((const int64_t *)d)[i];
  case PSG_DTYPE_UINT8:
  case PSG_DTYPE_BOOL: return ((const uint8_t *)d)[i];
  case PSG_DTYPE_UINT16: return ((const uint16_t *)d)[i];
  case PSG_DTYPE_UINT32: return ((const uint32_t *)d)[i];
  case PSG_DTYPE_UINT64: return (double)((const uint64_t *)d)[i];
  default: return NAN;
  }
}

/* "[0, 2, 5]": flat index i of t as a multi-index. */
static void format_index(psgi_buf *b, const psg_tensor *t, int64_t i) {
  int nd = psg_tensor_ndim(t);
  int64_t idx[PSG_MAX_RANK];
  for (int d = nd - 1; d >= 0; d--) {
    int64_t n = psg_tensor_dim(t, d);
    idx[d] = n ? i % n : 0;
    i = n ? i / n : 0;
  }
  psgi_buf_putc(b, '[');
  for (int d = 0; d < nd; d++) psgi_buf_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
  psgi_buf_putc(b, ']');
}

static void format_shape(psgi_buf *b, const psg_tensor *t) {
  psgi_buf_printf(b, "%s (", psg_dtype_name(psg_tensor_dtype(t)));
  for (int d = 0; d < psg_tensor_ndim(t); d++)
    psgi_buf_printf(b, "%s%lld", d ? ", " : "", (long long)psg_tensor_dim(t, d));
  psgi_buf_putc(b, ')');
}

/* The error of one element: 0 when equal (NaN equals NaN here: a pass that
 * keeps a NaN keeps the result), +inf when only one side is NaN. Floats are
 * relative to max(|before|, FLOOR), integers absolute. */
static double element_error(double before, double after, bool fl) {
  if (isnan(before) || isnan(after)) return isnan(before) && isnan(after) ? 0 : INFINITY;
  if (before == after) return 0; /* equal infinities too */
  double diff = fabs(after - before);
  return fl ? diff / fmax(fabs(before), FLOOR) : diff;
}

/* Appends why `after` is not `before` within `rtol` (floats) or exactly
 * (others); false when they agree. */
static bool tensor_differs(const psg_tensor *before, const psg_tensor *after, double rtol, bool reassociating,
                           psgi_buf *why) {
  int dt = psg_tensor_dtype(before);
  bool same_shape = dt == psg_tensor_dtype(after) && psg_tensor_ndim(before) == psg_tensor_ndim(after);
  for (int d = 0; same_shape && d < psg_tensor_ndim(before); d++)
    same_shape = psg_tensor_dim(before, d) == psg_tensor_dim(after, d);
  if (!same_shape) {
    psgi_buf_puts(why, "is ");
    format_shape(why, after);
    psgi_buf_puts(why, " after the pass but ");
    format_shape(why, before);
    psgi_buf_puts(why, " before");
    return true;
  }
  bool fl = is_float(dt);
  if (!fl && psg_tensor_equal(before, after)) return false;
  if (is_half(dt)) return psgi_buf_puts(why, "differs (half-precision outputs are compared bit for bit)"), true;
  double limit = fl ? rtol : 0, worst = 0;
  int64_t n = psg_tensor_numel(before), first = -1, at = -1;
  for (int64_t i = 0; i < n; i++) {
    double e = element_error(element(before, i), element(after, i), fl);
    if (!(e <= limit) && first < 0) first = i;
    if (e > worst || (isnan(e) && at < 0)) worst = e, at = i;
  }
  if (first < 0) return false;
  psgi_buf_printf(why, "max error %.3g at ", worst);
  format_index(why, before, at);
  if (fl)
    psgi_buf_printf(why, " (|after - before| / max(|before|, %g); tolerance %g%s)", FLOOR, rtol,
                    reassociating ? " for a reassociating pass" : "");
  else
    psgi_buf_puts(why, " (|after - before|; integers must match exactly)");
  psgi_buf_puts(why, "; first differing element ");
  format_index(why, before, first);
  psgi_buf_printf(why, ": %.9g before, %.9g after", element(before, first), element(after, first));
  return true;
}

bool psgi_validate_outputs_differ(const psgi_validate_run *before, const psgi_validate_run *after, double rtol,
                                  bool reassociating, psgi_buf *why) {
  for (size_t s = 0; s < before->num_sets; s++) {
    if (after->num_outputs != before->num_outputs) {
      psgi_buf_printf(why, "@main gives %zu outputs after the pass but %zu before", after->num_outputs,
                      before->num_outputs);
      return true;
    }
    for (size_t k = 0; k < before->num_outputs; k++) {
      size_t at = s * before->num_outputs + k;
      size_t mark = why->len;
      psgi_buf_printf(why, "@main output %zu on validation input %zu: ", k, s);
      if (tensor_differs(before->outputs[at], after->outputs[at], rtol, reassociating, why)) return true;
      why->len = mark;
    }
  }
  return false;
}
