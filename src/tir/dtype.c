/* Passage — TIR data types (TVM's DataType): code, bits and lanes packed in
 * one integer, and their TVM spellings ("float32x8", "bool", "handle"). */
#include <stdio.h>
#include "tir/tir_internal.h"

static bool scalar_ok(int code, int bits) {
  switch (code) {
  case PSG_TIR_CODE_INT: return bits == 8 || bits == 16 || bits == 32 || bits == 64;
  case PSG_TIR_CODE_UINT: return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
  case PSG_TIR_CODE_FLOAT: return bits == 16 || bits == 32 || bits == 64;
  case PSG_TIR_CODE_BFLOAT: return bits == 16;
  case PSG_TIR_CODE_HANDLE: return bits == 64;
  default: return false;
  }
}

psg_tir_dtype psg_tir_dtype_make(int code, int bits, int lanes) {
  if (!scalar_ok(code, bits) || lanes < 1 || lanes > PSG_TIR_MAX_LANES) return 0;
  return (psg_tir_dtype)code | (psg_tir_dtype)bits << 8 | (psg_tir_dtype)lanes << 16;
}

int psg_tir_dtype_code(psg_tir_dtype t) { return (int)(t & 0xff); }
int psg_tir_dtype_bits(psg_tir_dtype t) { return (int)(t >> 8 & 0xff); }
int psg_tir_dtype_lanes(psg_tir_dtype t) { return (int)(t >> 16); }
bool psg_tir_dtype_is_valid(psg_tir_dtype t) {
  return psg_tir_dtype_make(psg_tir_dtype_code(t), psg_tir_dtype_bits(t), psg_tir_dtype_lanes(t)) == t;
}
psg_tir_dtype psg_tir_dtype_with_lanes(psg_tir_dtype t, int lanes) {
  return psg_tir_dtype_make(psg_tir_dtype_code(t), psg_tir_dtype_bits(t), lanes);
}
bool psg_tir_dtype_is_bool(psg_tir_dtype t) {
  return psg_tir_dtype_code(t) == PSG_TIR_CODE_UINT && psg_tir_dtype_bits(t) == 1;
}
bool psg_tir_dtype_is_int(psg_tir_dtype t) { return t && psg_tir_dtype_code(t) == PSG_TIR_CODE_INT; }
bool psg_tir_dtype_is_uint(psg_tir_dtype t) {
  return psg_tir_dtype_code(t) == PSG_TIR_CODE_UINT && psg_tir_dtype_bits(t) > 1;
}
bool psg_tir_dtype_is_float(psg_tir_dtype t) {
  return psg_tir_dtype_code(t) == PSG_TIR_CODE_FLOAT || psg_tir_dtype_code(t) == PSG_TIR_CODE_BFLOAT;
}
bool psg_tir_dtype_is_handle(psg_tir_dtype t) { return psg_tir_dtype_code(t) == PSG_TIR_CODE_HANDLE; }

psg_tir_dtype psg_tir_dtype_int32(void) { return psg_tir_dtype_make(PSG_TIR_CODE_INT, 32, 1); }
psg_tir_dtype psg_tir_dtype_int64(void) { return psg_tir_dtype_make(PSG_TIR_CODE_INT, 64, 1); }
psg_tir_dtype psg_tir_dtype_float32(void) { return psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 32, 1); }
psg_tir_dtype psg_tir_dtype_bool(void) { return psg_tir_dtype_make(PSG_TIR_CODE_UINT, 1, 1); }
psg_tir_dtype psg_tir_dtype_handle(void) { return psg_tir_dtype_make(PSG_TIR_CODE_HANDLE, 64, 1); }

size_t psg_tir_dtype_str(psg_tir_dtype t, char *buf, size_t size) {
  char tmp[32];
  int n;
  if (!psg_tir_dtype_is_valid(t)) {
    n = snprintf(tmp, sizeof tmp, "invalid");
  } else {
    int code = psg_tir_dtype_code(t), bits = psg_tir_dtype_bits(t), lanes = psg_tir_dtype_lanes(t);
    static const char *const prefix[] = {"int", "uint", "float", "handle", "bfloat"};
    if (psg_tir_dtype_is_bool(t))
      n = snprintf(tmp, sizeof tmp, "bool");
    else if (code == PSG_TIR_CODE_HANDLE)
      n = snprintf(tmp, sizeof tmp, "handle");
    else
      n = snprintf(tmp, sizeof tmp, "%s%d", prefix[code], bits);
    if (lanes > 1) n += snprintf(tmp + n, sizeof tmp - (size_t)n, "x%d", lanes);
  }
  if (size) {
    size_t k = (size_t)n < size - 1 ? (size_t)n : size - 1;
    memcpy(buf, tmp, k);
    buf[k] = 0;
  }
  return (size_t)n;
}

const char *psgi_tir_dtype_name(psg_tir_dtype t, psgi_tir_dtype_name_buf *b) {
  psg_tir_dtype_str(t, b->s, sizeof b->s);
  return b->s;
}

/* Reads a positive decimal number of at most 5 digits at *p; 0 if none. */
static int read_num(const char **p, const char *end) {
  int v = 0, digits = 0;
  while (*p < end && **p >= '0' && **p <= '9' && digits < 6) {
    v = v * 10 + (**p - '0');
    ++*p;
    ++digits;
  }
  return digits && digits < 6 ? v : 0;
}

psg_tir_dtype psg_tir_dtype_parse(const char *name, size_t len) {
  if (!name) return 0;
  const char *p = name, *end = name + len;
  static const struct { const char *prefix; int code; } codes[] = {
      {"bfloat", PSG_TIR_CODE_BFLOAT}, {"float", PSG_TIR_CODE_FLOAT}, {"uint", PSG_TIR_CODE_UINT},
      {"int", PSG_TIR_CODE_INT},       {"bool", -1},                  {"handle", -2}};
  int code = -3, bits = 0;
  for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
    size_t n = strlen(codes[i].prefix);
    if ((size_t)(end - p) >= n && memcmp(p, codes[i].prefix, n) == 0) {
      code = codes[i].code;
      p += n;
      break;
    }
  }
  if (code == -3) return 0;
  if (code == -1) {
    code = PSG_TIR_CODE_UINT;
    bits = 1;
  } else if (code == -2) {
    code = PSG_TIR_CODE_HANDLE;
    bits = 64;
  } else if (!(bits = read_num(&p, end))) {
    return 0;
  }
  int lanes = 1;
  if (p < end && *p == 'x') {
    p++;
    if (!(lanes = read_num(&p, end))) return 0;
  }
  if (p != end) return 0;
  return psg_tir_dtype_make(code, bits, lanes);
}
