/* Passage — layout strings and dtype limits for the pool and image op
 * families (spatial.h). */
#include <ctype.h>
#include <float.h>
#include "ops/spatial.h"

int psgi_layout_index(const char *layout, char axis) {
  int n = 0;
  for (const char *p = layout; *p; p++) {
    if (isdigit((unsigned char)*p)) continue; /* the factor of a split sub-axis */
    if (*p == axis) return n;
    n++;
  }
  return -1;
}

psg_status psgi_layout_hw(psgi_op_call *call, const char *layout, int ndim, int *h, int *w) {
  const char *op = psgi_op_table[call->op].name;
  int n = 0;
  for (const char *p = layout; *p; p++) {
    if (isdigit((unsigned char)*p)) {
      while (isdigit((unsigned char)p[1])) p++;
      if (!islower((unsigned char)p[1]))
        return psgi_op_fail(call, PSG_ERR_TYPE, "%s: invalid layout '%s'", op, layout);
      continue;
    }
    if (!isalpha((unsigned char)*p)) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: invalid layout '%s'", op, layout);
    n++;
  }
  *h = psgi_layout_index(layout, 'H');
  *w = psgi_layout_index(layout, 'W');
  if (*h < 0 || *w < 0 || psgi_layout_index(layout, 'h') >= 0 || psgi_layout_index(layout, 'w') >= 0)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "%s: invalid layout '%s': it must have H and W, which cannot be split", op, layout);
  if (n != ndim)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: layout '%s' has %d axes but the data has rank %d", op, layout,
                        n, ndim);
  return PSG_OK;
}

double psgi_dtype_lowest(int dtype) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: return -65504.0;
  case PSG_DTYPE_BFLOAT16: return -3.3895313892515355e38;
  case PSG_DTYPE_FLOAT32: return -FLT_MAX;
  case PSG_DTYPE_FLOAT64: return -DBL_MAX;
  case PSG_DTYPE_INT8: return INT8_MIN;
  case PSG_DTYPE_INT16: return INT16_MIN;
  case PSG_DTYPE_INT32: return INT32_MIN;
  case PSG_DTYPE_INT64: return (double)INT64_MIN;
  default: return 0; /* unsigned and bool */
  }
}

double psgi_dtype_highest(int dtype) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: return 65504.0;
  case PSG_DTYPE_BFLOAT16: return 3.3895313892515355e38;
  case PSG_DTYPE_FLOAT32: return FLT_MAX;
  case PSG_DTYPE_FLOAT64: return DBL_MAX;
  case PSG_DTYPE_INT8: return INT8_MAX;
  case PSG_DTYPE_INT16: return INT16_MAX;
  case PSG_DTYPE_INT32: return INT32_MAX;
  case PSG_DTYPE_INT64: return 9223372036854775807.0;
  case PSG_DTYPE_UINT8: return UINT8_MAX;
  case PSG_DTYPE_UINT16: return UINT16_MAX;
  case PSG_DTYPE_UINT32: return UINT32_MAX;
  case PSG_DTYPE_UINT64: return 18446744073709551615.0;
  case PSG_DTYPE_BOOL: return 1;
  default: return 0;
  }
}
