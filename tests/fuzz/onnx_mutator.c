/* Structure-aware mutation for fuzz_onnx (issue 14). Byte flips rarely get a
 * model past the protobuf decoder into the importer's shape and attribute
 * logic, so most mutations decode the input as a ModelProto, change what a
 * model's author could change (a dim, an attribute, an initializer, an op
 * type, a wire, a dtype, the opset) and encode it again. Inputs that do not
 * decode, and a share of those that do, get libFuzzer's byte mutations.
 *
 * Test code, linked into the fuzz binary only: the decoded tree is
 * protobuf-c's, allocated with malloc, so every replacement below is malloc'd
 * too and onnx__model_proto__free_unpacked releases old and new alike.
 * Compiled out with -DFUZZ_ONNX_BYTES_ONLY (the byte-level baseline the
 * coverage comparison runs against). */
#ifndef FUZZ_ONNX_BYTES_ONLY
#include <math.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "onnx.pb-c.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

enum { MAX_GRAPHS = 64, MAX_NAMES = 4096, SMALL_TENSOR = 1 << 16 };

/* xorshift64: the seed libFuzzer passes decides every choice. */
typedef struct { uint64_t s; } rng;

static uint64_t next(rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}
static size_t below(rng *r, size_t n) { return n ? (size_t)(next(r) % n) : 0; }
static int one_in(rng *r, size_t n) { return below(r, n) == 0; }

#define PICK(r, arr) ((arr)[below((r), sizeof(arr) / sizeof((arr)[0]))])

static const char *const IMPORTED_OPS[] = {
  "Abs", "Add", "AveragePool", "BatchNormalization", "Cast", "Clip", "Concat", "Constant",
  "ConstantOfShape", "Conv", "ConvTranspose", "Div", "Equal", "Exp", "Expand", "Flatten", "Gather",
  "Gemm", "GlobalAveragePool", "Greater", "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity",
  "If", "LSTM", "LayerNormalization", "LeakyRelu", "Less", "Log", "MatMul", "Max", "MaxPool", "Min",
  "Mul", "Neg", "Pad", "Pow", "ReduceMax", "ReduceMean", "Relu", "Reshape", "Resize", "Shape",
  "Sigmoid", "Slice", "Softmax", "Split", "Sqrt", "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze",
};
static const char *const ATTR_NAMES[] = {
  "axis", "axes", "perm", "keepdims", "group", "pads", "strides", "dilations", "kernel_shape",
  "output_padding", "output_shape", "to", "alpha", "beta", "gamma", "transA", "transB", "epsilon",
  "momentum", "mode", "split", "value", "min", "max", "auto_pad", "ceil_mode", "count_include_pad",
  "hidden_size", "direction", "allowzero", "coordinate_transformation_mode", "nearest_mode",
  "cubic_coeff_a", "exclude_outside", "extrapolation_value", "num_outputs", "stash_type",
  "storage_order", "starts", "ends",
};
static const char *const ATTR_STRINGS[] = {
  "", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", "constant", "reflect", "edge", "wrap",
  "nearest", "linear", "cubic", "asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners",
  "tf_crop_and_resize", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "forward",
  "reverse", "bidirectional", "Sigmoid", "Tanh", "Relu", "\xff\xfe", "DEPTH_FIRST",
};
static const char *const DIM_PARAMS[] = { "N", "batch", "", "?", "unk__0", "N" };
static const int64_t INTS[] = {
  0, 1, -1, 2, 3, 4, -2, 7, 8, 16, 127, 128, 255, 256, -129, 65535, 65536,
  INT32_MAX, INT32_MIN, (int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 40, -((int64_t)1 << 40),
  (int64_t)1 << 62, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 844424930231968,
};
static const int32_t DTYPES[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 1000, -1 };
static const int64_t OPSETS[] = { 0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 21, 22, 1000, -1 };

static int64_t some_int(rng *r, int64_t old) {
  switch (below(r, 6)) {
  case 0: return (int64_t)((uint64_t)old + 1);
  case 1: return (int64_t)((uint64_t)old - 1);
  case 2: return old == INT64_MIN ? old : -old;
  case 3: return (int64_t)((uint64_t)old * 2);
  default: return PICK(r, INTS);
  }
}

static float some_float(rng *r, float old) {
  const float v[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e-30f, 1e30f, FLT_MAX, -FLT_MAX, FLT_MIN,
                      1e-45f, INFINITY, -INFINITY, NAN, 8192.0f, 2147483648.0f, 9.3e18f, 255.5f, -129.0f };
  switch (below(r, 5)) {
  case 0: return old * 2.0f;
  case 1: return -old;
  default: return PICK(r, v);
  }
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

/* Replaces *slot (a malloc'd string or NULL) with a copy of s. */
static void set_str(char **slot, const char *s) {
  char *c = dup_str(s);
  if (!c) return;
  free(*slot);
  *slot = c;
}

/* Grows a malloc'd array of n elements of `size` bytes by one (zeroed). */
static void *grow(void *arr, size_t n, size_t size) {
  unsigned char *p = realloc(arr, (n + 1) * size);
  if (p) memset(p + n * size, 0, size);
  return p;
}

/* Removes element i of an array of n pointers (the caller freed it). */
static void remove_at(void **arr, size_t n, size_t i) {
  memmove(arr + i, arr + i + 1, (n - i - 1) * sizeof *arr);
}

/* ---- what a mutation works on ---- */

typedef struct {
  Onnx__ModelProto *model;
  Onnx__GraphProto *graphs[MAX_GRAPHS]; /* the main graph, then If branches & co. */
  size_t n_graphs;
} target;

/* Collects the graphs reachable through graph attributes (explicit stack). */
static void collect_graphs(target *t) {
  t->n_graphs = 0;
  if (!t->model->graph) return;
  t->graphs[t->n_graphs++] = t->model->graph;
  for (size_t gi = 0; gi < t->n_graphs; gi++) {
    Onnx__GraphProto *g = t->graphs[gi];
    for (size_t ni = 0; ni < g->n_node; ni++) {
      Onnx__NodeProto *n = g->node[ni];
      for (size_t ai = 0; ai < n->n_attribute; ai++) {
        Onnx__AttributeProto *a = n->attribute[ai];
        if (a->g && t->n_graphs < MAX_GRAPHS) t->graphs[t->n_graphs++] = a->g;
        for (size_t k = 0; k < a->n_graphs && t->n_graphs < MAX_GRAPHS; k++) t->graphs[t->n_graphs++] = a->graphs[k];
      }
    }
  }
}

static Onnx__GraphProto *some_graph(rng *r, target *t) {
  if (!t->n_graphs) return NULL;
  return one_in(r, 2) ? t->graphs[0] : t->graphs[below(r, t->n_graphs)];
}

static Onnx__NodeProto *some_node(rng *r, Onnx__GraphProto *g) {
  return g && g->n_node ? g->node[below(r, g->n_node)] : NULL;
}

/* A name already defined in g: an input, an initializer or a node output. */
static const char *some_name(rng *r, Onnx__GraphProto *g) {
  size_t total = g->n_input + g->n_initializer;
  for (size_t i = 0; i < g->n_node; i++) total += g->node[i]->n_output;
  if (!total) return "";
  size_t k = below(r, total);
  if (k < g->n_input) return g->input[k]->name ? g->input[k]->name : "";
  k -= g->n_input;
  if (k < g->n_initializer) return g->initializer[k]->name ? g->initializer[k]->name : "";
  k -= g->n_initializer;
  for (size_t i = 0; i < g->n_node; i++) {
    if (k < g->node[i]->n_output) return g->node[i]->output[k];
    k -= g->node[i]->n_output;
  }
  return "";
}

static size_t dtype_bytes(int32_t dt) {
  switch (dt) {
  case 2: case 3: case 9: return 1;
  case 4: case 5: case 10: case 16: return 2;
  case 1: case 6: case 12: return 4;
  case 7: case 11: case 13: case 14: return 8;
  case 15: return 16;
  default: return 0;
  }
}

/* Product of dims when it is small and non-negative, else SIZE_MAX. */
static size_t small_count(const int64_t *dims, size_t n) {
  size_t c = 1;
  for (size_t i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] > SMALL_TENSOR) return SIZE_MAX;
    c *= (size_t)dims[i];
    if (c > SMALL_TENSOR) return SIZE_MAX;
  }
  return c;
}

/* ---- dims and dtypes of value infos ---- */

static Onnx__ValueInfoProto *some_value_info(rng *r, Onnx__GraphProto *g) {
  size_t total = g->n_input + g->n_output + g->n_value_info;
  if (!total) return NULL;
  size_t k = below(r, total);
  if (k < g->n_input) return g->input[k];
  k -= g->n_input;
  if (k < g->n_output) return g->output[k];
  return g->value_info[k - g->n_output];
}

static void set_dim(rng *r, Onnx__TensorShapeProto__Dimension *d) {
  int64_t old = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : 1;
  if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) free(d->dim_param);
  d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
  d->dim_value = 0;
  if (one_in(r, 5)) {
    d->dim_param = dup_str(PICK(r, DIM_PARAMS));
    if (d->dim_param) d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  } else if (!one_in(r, 12)) { /* else: a dim with neither value nor name */
    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d->dim_value = some_int(r, old);
  }
}

static int mutate_value_info(rng *r, target *t) {
  Onnx__GraphProto *g = some_graph(r, t);
  Onnx__ValueInfoProto *vi = g ? some_value_info(r, g) : NULL;
  if (!vi) return 0;
  if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type) return 0;
  Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  if (one_in(r, 5)) {
    tt->has_elem_type = 1;
    tt->elem_type = PICK(r, DTYPES);
    return 1;
  }
  if (!tt->shape) {
    if (!(tt->shape = malloc(sizeof *tt->shape))) return 0;
    onnx__tensor_shape_proto__init(tt->shape);
  }
  Onnx__TensorShapeProto *sh = tt->shape;
  if (sh->n_dim && one_in(r, 8)) { /* drop the last dim (rank changes) */
    protobuf_c_message_free_unpacked(&sh->dim[--sh->n_dim]->base, NULL);
    return 1;
  }
  if (!sh->n_dim || one_in(r, 8)) { /* add a dim */
    Onnx__TensorShapeProto__Dimension *d = malloc(sizeof *d);
    void *arr = d ? grow(sh->dim, sh->n_dim, sizeof *sh->dim) : NULL;
    if (!arr) { free(d); return 0; }
    sh->dim = arr;
    onnx__tensor_shape_proto__dimension__init(d);
    sh->dim[sh->n_dim++] = d;
    set_dim(r, d);
    return 1;
  }
  set_dim(r, sh->dim[below(r, sh->n_dim)]);
  return 1;
}

/* ---- tensors (initializers, Constant values) ---- */

static void clear_data(Onnx__TensorProto *t) {
  free(t->raw_data.data);
  t->raw_data.data = NULL;
  t->raw_data.len = 0;
  t->has_raw_data = 0;
  free(t->float_data); t->float_data = NULL; t->n_float_data = 0;
  free(t->int32_data); t->int32_data = NULL; t->n_int32_data = 0;
  free(t->int64_data); t->int64_data = NULL; t->n_int64_data = 0;
  free(t->double_data); t->double_data = NULL; t->n_double_data = 0;
  free(t->uint64_data); t->uint64_data = NULL; t->n_uint64_data = 0;
}

/* Writes one boundary value of the tensor's dtype at element i of raw_data. */
static void poke_raw(rng *r, Onnx__TensorProto *t, size_t i) {
  uint8_t *p = t->raw_data.data + i;
  size_t room = t->raw_data.len - i;
  int64_t v = PICK(r, INTS);
  switch (t->data_type) {
  case 1: if (room >= 4) { float f = some_float(r, 1.0f); memcpy(p, &f, 4); } break;
  case 11: if (room >= 8) { double d = some_float(r, 1.0f); memcpy(p, &d, 8); } break;
  case 7: case 13: if (room >= 8) memcpy(p, &v, 8); break;
  case 6: case 12: if (room >= 4) { int32_t w = (int32_t)(uint32_t)v; memcpy(p, &w, 4); } break;
  case 10: case 16: case 4: case 5: if (room >= 2) { uint16_t h = (uint16_t)next(r); memcpy(p, &h, 2); } break;
  default: *p = (uint8_t)next(r); break;
  }
}

/* New data for the tensor's dtype: `count` boundary values, raw or typed. */
static void fill_data(rng *r, Onnx__TensorProto *t, size_t count) {
  clear_data(t);
  if (count > SMALL_TENSOR) count = below(r, 6); /* dims too big to fill: a few values */
  size_t width = dtype_bytes(t->data_type);
  if (!width || width * count == 0) return;
  if (one_in(r, 2)) {
    if (!(t->raw_data.data = calloc(count, width))) return;
    t->raw_data.len = count * width;
    t->has_raw_data = 1;
    for (size_t i = 0; i < count; i++) poke_raw(r, t, i * width);
    return;
  }
  switch (t->data_type) {
  case 1:
    if ((t->float_data = malloc(count * sizeof(float)))) t->n_float_data = count;
    for (size_t i = 0; i < t->n_float_data; i++) t->float_data[i] = some_float(r, 1.0f);
    break;
  case 11:
    if ((t->double_data = malloc(count * sizeof(double)))) t->n_double_data = count;
    for (size_t i = 0; i < t->n_double_data; i++) t->double_data[i] = some_float(r, 1.0f);
    break;
  case 7:
    if ((t->int64_data = malloc(count * sizeof(int64_t)))) t->n_int64_data = count;
    for (size_t i = 0; i < t->n_int64_data; i++) t->int64_data[i] = some_int(r, 1);
    break;
  case 12: case 13:
    if ((t->uint64_data = malloc(count * sizeof(uint64_t)))) t->n_uint64_data = count;
    for (size_t i = 0; i < t->n_uint64_data; i++) t->uint64_data[i] = (uint64_t)some_int(r, 1);
    break;
  default:
    if ((t->int32_data = malloc(count * sizeof(int32_t)))) t->n_int32_data = count;
    for (size_t i = 0; i < t->n_int32_data; i++) t->int32_data[i] = (int32_t)(uint32_t)some_int(r, 1);
    break;
  }
}

static int mutate_tensor(rng *r, Onnx__TensorProto *t) {
  switch (below(r, 8)) {
  case 0: /* one dim to a boundary value: data no longer matches */
    if (!t->n_dims) break;
    t->dims[below(r, t->n_dims)] = some_int(r, t->dims[0]);
    return 1;
  case 1: { /* rank +1 / -1, data unchanged */
    if (t->n_dims && one_in(r, 2)) { t->n_dims--; return 1; }
    int64_t *d = grow(t->dims, t->n_dims, sizeof *t->dims);
    if (!d) return 0;
    t->dims = d;
    t->dims[t->n_dims++] = one_in(r, 2) ? 1 : some_int(r, 1);
    return 1;
  }
  case 2: { /* consistent: new small dims and data that fits them */
    size_t rank = below(r, 4);
    int64_t *d = rank ? malloc(rank * sizeof *d) : NULL;
    if (rank && !d) return 0;
    for (size_t i = 0; i < rank; i++) d[i] = (int64_t)below(r, 5);
    free(t->dims);
    t->dims = d;
    t->n_dims = rank;
    fill_data(r, t, small_count(d, rank));
    return 1;
  }
  case 3: /* data of the wrong length for the dims */
    fill_data(r, t, below(r, 6));
    return 1;
  case 4: /* raw_data cut short or grown by a few bytes */
    if (t->has_raw_data && t->raw_data.len && one_in(r, 2)) {
      t->raw_data.len -= 1 + below(r, t->raw_data.len);
      return 1;
    } else {
      size_t extra = 1 + below(r, 16);
      uint8_t *p = realloc(t->raw_data.data, t->raw_data.len + extra);
      if (!p) return 0;
      for (size_t i = 0; i < extra; i++) p[t->raw_data.len + i] = (uint8_t)next(r);
      t->raw_data.data = p;
      t->raw_data.len += extra;
      t->has_raw_data = 1;
      return 1;
    }
  case 5: /* boundary values inside the existing data */
    if (t->has_raw_data && t->raw_data.len) {
      size_t width = dtype_bytes(t->data_type);
      size_t n = width ? t->raw_data.len / width : t->raw_data.len;
      if (n) poke_raw(r, t, below(r, n) * (width ? width : 1));
      return 1;
    }
    if (t->n_int64_data) { t->int64_data[below(r, t->n_int64_data)] = some_int(r, 1); return 1; }
    if (t->n_float_data) { t->float_data[below(r, t->n_float_data)] = some_float(r, 1.0f); return 1; }
    if (t->n_int32_data) { t->int32_data[below(r, t->n_int32_data)] = (int32_t)(uint32_t)some_int(r, 1); return 1; }
    break;
  case 6: /* another dtype over the same bytes */
    t->has_data_type = 1;
    t->data_type = PICK(r, DTYPES);
    return 1;
  case 7: /* data said to live in an external file */
    if (one_in(r, 4)) {
      t->has_data_location = 1;
      t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
      return 1;
    }
    fill_data(r, t, small_count(t->dims, t->n_dims));
    return 1;
  }
  return 0;
}

static int mutate_initializer(rng *r, target *t) {
  Onnx__GraphProto *g = some_graph(r, t);
  if (!g || !g->n_initializer) return 0;
  size_t i = below(r, g->n_initializer);
  if (one_in(r, 10)) { /* an initializer goes missing */
    onnx__tensor_proto__free_unpacked(g->initializer[i], NULL);
    remove_at((void **)g->initializer, g->n_initializer--, i);
    return 1;
  }
  if (one_in(r, 10)) { /* renamed onto another value's name */
    set_str(&g->initializer[i]->name, some_name(r, g));
    return 1;
  }
  return mutate_tensor(r, g->initializer[i]);
}

/* ---- attributes ---- */

static int mutate_attr_value(rng *r, Onnx__AttributeProto *a) {
  switch (a->type) {
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
    a->has_i = 1;
    a->i = some_int(r, a->i);
    return 1;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
    a->has_f = 1;
    a->f = some_float(r, a->f);
    return 1;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    if (a->n_ints && one_in(r, 4)) { a->n_ints--; return 1; }
    if (!a->n_ints || one_in(r, 4)) {
      int64_t *p = grow(a->ints, a->n_ints, sizeof *a->ints);
      if (!p) return 0;
      a->ints = p;
      a->ints[a->n_ints] = some_int(r, a->n_ints ? a->ints[0] : 1);
      a->n_ints++;
      return 1;
    } else {
      size_t k = below(r, a->n_ints);
      a->ints[k] = some_int(r, a->ints[k]);
      return 1;
    }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    if (a->n_floats && one_in(r, 4)) { a->n_floats--; return 1; }
    if (!a->n_floats || one_in(r, 4)) {
      float *p = grow(a->floats, a->n_floats, sizeof *a->floats);
      if (!p) return 0;
      a->floats = p;
      a->floats[a->n_floats] = some_float(r, 1.0f);
      a->n_floats++;
      return 1;
    } else {
      size_t k = below(r, a->n_floats);
      a->floats[k] = some_float(r, a->floats[k]);
      return 1;
    }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
    const char *s = PICK(r, ATTR_STRINGS);
    size_t n = strlen(s);
    uint8_t *p = malloc(n ? n : 1);
    if (!p) return 0;
    memcpy(p, s, n);
    free(a->s.data);
    a->s.data = p;
    a->s.len = n;
    a->has_s = 1;
    return 1;
  }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
    return a->t ? mutate_tensor(r, a->t) : 0;
  default:
    return 0;
  }
}

/* A new attribute with a name some importer reads and a value of any type. */
static int add_attr(rng *r, Onnx__NodeProto *n) {
  Onnx__AttributeProto *a = malloc(sizeof *a);
  void *arr = a ? grow(n->attribute, n->n_attribute, sizeof *n->attribute) : NULL;
  if (!arr) { free(a); return 0; }
  n->attribute = arr;
  onnx__attribute_proto__init(a);
  n->attribute[n->n_attribute++] = a;
  a->name = dup_str(PICK(r, ATTR_NAMES));
  a->has_type = 1;
  const Onnx__AttributeProto__AttributeType types[] = {
    ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT,
    ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS,
    ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING,
  };
  a->type = PICK(r, types);
  mutate_attr_value(r, a);
  return 1;
}

static int mutate_attribute(rng *r, target *t) {
  Onnx__NodeProto *n = some_node(r, some_graph(r, t));
  if (!n) return 0;
  if (!n->n_attribute || one_in(r, 8)) return add_attr(r, n);
  size_t i = below(r, n->n_attribute);
  Onnx__AttributeProto *a = n->attribute[i];
  if (one_in(r, 12)) { /* dropped */
    onnx__attribute_proto__free_unpacked(a, NULL);
    remove_at((void **)n->attribute, n->n_attribute--, i);
    return 1;
  }
  if (one_in(r, 12)) { /* the declared type no longer matches the value */
    a->has_type = 1;
    a->type = (Onnx__AttributeProto__AttributeType)below(r, 15);
    return 1;
  }
  if (one_in(r, 12)) { /* duplicated */
    size_t len = onnx__attribute_proto__get_packed_size(a);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return 0;
    onnx__attribute_proto__pack(a, buf);
    Onnx__AttributeProto *c = onnx__attribute_proto__unpack(NULL, len, buf);
    free(buf);
    void *arr = c ? grow(n->attribute, n->n_attribute, sizeof *n->attribute) : NULL;
    if (!arr) { if (c) onnx__attribute_proto__free_unpacked(c, NULL); return 0; }
    n->attribute = arr;
    n->attribute[n->n_attribute++] = c;
    return 1;
  }
  return mutate_attr_value(r, a);
}

/* ---- nodes: op type, wiring, order ---- */

static int mutate_op_type(rng *r, target *t) {
  Onnx__NodeProto *n = some_node(r, some_graph(r, t));
  if (!n) return 0;
  set_str(&n->op_type, PICK(r, IMPORTED_OPS));
  if (one_in(r, 16)) set_str(&n->domain, one_in(r, 2) ? "ai.onnx" : "com.example");
  return 1;
}

/* Appends a copy of s to a malloc'd array of n strings. */
static int push_str(char ***arr, size_t *n, const char *s) {
  char *c = dup_str(s);
  char **p = c ? grow(*arr, *n, sizeof **arr) : NULL;
  if (!p) { free(c); return 0; }
  *arr = p;
  p[(*n)++] = c;
  return 1;
}

static int mutate_wiring(rng *r, target *t) {
  Onnx__GraphProto *g = some_graph(r, t);
  Onnx__NodeProto *n = some_node(r, g);
  if (!n) return 0;
  switch (below(r, 8)) {
  case 0: /* drop an input */
    if (!n->n_input) return 0;
    free(n->input[--n->n_input]);
    return 1;
  case 1: /* one more input: a repeat or any defined name */
    return push_str(&n->input, &n->n_input, n->n_input && one_in(r, 2) ? n->input[below(r, n->n_input)] : some_name(r, g));
  case 2: /* an input rewired to another defined name */
    if (!n->n_input) return 0;
    set_str(&n->input[below(r, n->n_input)], some_name(r, g));
    return 1;
  case 3: /* an input left out the ONNX way (empty name) or undefined */
    if (!n->n_input) return 0;
    set_str(&n->input[below(r, n->n_input)], one_in(r, 2) ? "" : "fz_undefined");
    return 1;
  case 4: /* drop an output */
    if (!n->n_output) return 0;
    free(n->output[--n->n_output]);
    return 1;
  case 5: /* one more output */
    return push_str(&n->output, &n->n_output, one_in(r, 2) ? "fz_extra" : some_name(r, g));
  case 6: /* an output renamed onto a defined name (two definitions) or to "" */
    if (!n->n_output) return 0;
    set_str(&n->output[below(r, n->n_output)], one_in(r, 3) ? "" : some_name(r, g));
    return 1;
  default: /* a graph output pointed at another value */
    if (!g->n_output) return 0;
    set_str(&g->output[below(r, g->n_output)]->name, some_name(r, g));
    return 1;
  }
}

static int mutate_node_list(rng *r, target *t) {
  Onnx__GraphProto *g = some_graph(r, t);
  if (!g || !g->n_node) return 0;
  size_t i = below(r, g->n_node), j = below(r, g->n_node);
  switch (below(r, 3)) {
  case 0: { /* two nodes swap places: a use may come before its definition */
    Onnx__NodeProto *tmp = g->node[i];
    g->node[i] = g->node[j];
    g->node[j] = tmp;
    return i != j;
  }
  case 1: /* a node removed */
    onnx__node_proto__free_unpacked(g->node[i], NULL);
    remove_at((void **)g->node, g->n_node--, i);
    return 1;
  default: { /* a node duplicated at the end (its outputs defined twice) */
    size_t len = onnx__node_proto__get_packed_size(g->node[i]);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return 0;
    onnx__node_proto__pack(g->node[i], buf);
    Onnx__NodeProto *c = onnx__node_proto__unpack(NULL, len, buf);
    free(buf);
    void *arr = c ? grow(g->node, g->n_node, sizeof *g->node) : NULL;
    if (!arr) { if (c) onnx__node_proto__free_unpacked(c, NULL); return 0; }
    g->node = arr;
    g->node[g->n_node++] = c;
    return 1;
  }
  }
}

/* ---- model header ---- */

static int mutate_opset(rng *r, target *t) {
  Onnx__ModelProto *m = t->model;
  if (one_in(r, 6)) {
    m->has_ir_version = 1;
    m->ir_version = PICK(r, OPSETS);
    return 1;
  }
  if (!m->n_opset_import || one_in(r, 8)) {
    Onnx__OperatorSetIdProto *o = malloc(sizeof *o);
    void *arr = o ? grow(m->opset_import, m->n_opset_import, sizeof *m->opset_import) : NULL;
    if (!arr) { free(o); return 0; }
    m->opset_import = arr;
    onnx__operator_set_id_proto__init(o);
    m->opset_import[m->n_opset_import++] = o;
    o->domain = dup_str(one_in(r, 2) ? "" : "ai.onnx");
    o->has_version = 1;
    o->version = PICK(r, OPSETS);
    return 1;
  }
  size_t i = below(r, m->n_opset_import);
  if (one_in(r, 8)) {
    onnx__operator_set_id_proto__free_unpacked(m->opset_import[i], NULL);
    remove_at((void **)m->opset_import, m->n_opset_import--, i);
    return 1;
  }
  m->opset_import[i]->has_version = 1;
  m->opset_import[i]->version = PICK(r, OPSETS);
  return 1;
}

static int mutate_once(rng *r, target *t) {
  switch (below(r, 16)) {
  case 0: case 1: case 2: return mutate_value_info(r, t);
  case 3: case 4: case 5: case 6: return mutate_attribute(r, t);
  case 7: case 8: case 9: return mutate_initializer(r, t);
  case 10: return mutate_op_type(r, t);
  case 11: case 12: return mutate_wiring(r, t);
  case 13: return mutate_node_list(r, t);
  default: return mutate_opset(r, t);
  }
}

/* Encodes m into out when it fits; 0 when it does not. */
static size_t encode(const Onnx__ModelProto *m, uint8_t *out, size_t max_size) {
  size_t len = onnx__model_proto__get_packed_size(m);
  if (len == 0 || len > max_size) return 0;
  return onnx__model_proto__pack(m, out);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  rng r = { ((uint64_t)seed << 1 | 1) * 0x9E3779B97F4A7C15ull };
  if (one_in(&r, 5)) return LLVMFuzzerMutate(data, size, max_size);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
  if (!m) return LLVMFuzzerMutate(data, size, max_size);
  target t = { .model = m };
  collect_graphs(&t);
  int changed = 0;
  for (size_t k = 0, rounds = 1 + below(&r, 3); k < rounds; k++) {
    changed |= mutate_once(&r, &t);
    collect_graphs(&t); /* a removed node may have held a graph */
  }
  size_t out = changed ? encode(m, data, max_size) : 0;
  onnx__model_proto__free_unpacked(m, NULL);
  return out ? out : LLVMFuzzerMutate(data, size, max_size);
}

/* Crossover between models: a node or an initializer of the second model is
 * copied into the first (names and all, so it may wire into it). Inputs that
 * do not both decode are spliced byte-wise. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
  rng r = { ((uint64_t)seed << 1 | 1) * 0xD1B54A32D192ED03ull };
  Onnx__ModelProto *a = onnx__model_proto__unpack(NULL, size1, data1);
  Onnx__ModelProto *b = a ? onnx__model_proto__unpack(NULL, size2, data2) : NULL;
  size_t len = 0;
  if (a && b && a->graph && b->graph) {
    Onnx__GraphProto *ga = a->graph, *gb = b->graph;
    if (gb->n_initializer && one_in(&r, 3)) {
      size_t i = below(&r, gb->n_initializer);
      void *arr = grow(ga->initializer, ga->n_initializer, sizeof *ga->initializer);
      if (arr) { /* moved, not copied: b no longer owns it */
        ga->initializer = arr;
        ga->initializer[ga->n_initializer++] = gb->initializer[i];
        remove_at((void **)gb->initializer, gb->n_initializer--, i);
      }
    } else if (gb->n_node) {
      size_t i = below(&r, gb->n_node);
      void *arr = grow(ga->node, ga->n_node, sizeof *ga->node);
      if (arr) {
        ga->node = arr;
        size_t at = below(&r, ga->n_node + 1);
        memmove(ga->node + at + 1, ga->node + at, (ga->n_node - at) * sizeof *ga->node);
        ga->node[at] = gb->node[i];
        ga->n_node++;
        remove_at((void **)gb->node, gb->n_node--, i);
      }
    }
    len = encode(a, out, max_out_size);
  }
  if (a) onnx__model_proto__free_unpacked(a, NULL);
  if (b) onnx__model_proto__free_unpacked(b, NULL);
  if (len) return len;
  /* byte splice: a prefix of the first, the rest from the second */
  size_t cut1 = below(&r, size1 + 1), cut2 = below(&r, size2 + 1);
  if (cut1 > max_out_size) cut1 = max_out_size;
  size_t rest = size2 - cut2;
  if (rest > max_out_size - cut1) rest = max_out_size - cut1;
  if (cut1) memcpy(out, data1, cut1);
  if (rest) memcpy(out + cut1, data2 + cut2, rest);
  return cut1 + rest;
}
#endif
