/* Passage — TVMScript parser (tir_parse.c): buffer declarations (the
 * arguments of T.Buffer, T.match_buffer, T.decl_buffer) and type
 * annotations of variables (T.int32, T.handle("float32")). */
#include "text/tir_parse_internal.h"

/* Buffers --------------------------------------------------------------------- */

/* "(a, b)" / "[a, b]" / "a": a shape or a strides tuple. */
bool psgi_tirp_parse_tuple(tparser *ps, tnode_vec *out) {
  const char *close = tt_is(&ps->tok, "(") ? ")" : tt_is(&ps->tok, "[") ? "]" : NULL;
  if (!close) {
    psg_tir_node *e = psgi_tirp_parse_expr(ps);
    return e && psgi_tirp_push_node(ps, out, e);
  }
  psgi_tirp_advance(ps);
  while (!tt_is(&ps->tok, close)) {
    psg_tir_node *e = psgi_tirp_parse_expr(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      return false;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  return !psgi_tirp_expect(ps, close);
}
/* The arguments of T.Buffer / T.match_buffer / T.decl_buffer after the
 * shape's opening: shape, ["dtype"], keywords, ')'. `name` names the buffer
 * (and its data var when data= is absent). */
psg_tir_node *psgi_tirp_parse_buffer_rest(tparser *ps, const ttoken *at, const ttoken *name_tok, const char *name) {
  tnode_vec shape = {0}, strides = {0};
  psg_tir_node *data = NULL, *elem_offset = NULL, *out = NULL;
  psg_tir_dtype dt = psg_tir_dtype_float32();
  char scope[64] = "global";
  int align = 0, offset_factor = 0, buffer_type = 0;
  PSGI_VEC(int64_t) axis = {0};
  bool ok = true, has_shape = !(is_name(&ps->tok) && tt_is(&ps->next, "="));
  if (has_shape) ok = psgi_tirp_parse_tuple(ps, &shape);
  if (has_shape && ok && psgi_tirp_accept(ps, ",") && ps->tok.kind == TT_STRING)
    ok = psgi_tirp_string_dtype(ps, &dt) && (psgi_tirp_accept(ps, ",") || true);
  while (ok && !tt_is(&ps->tok, ")")) {
    int64_t v;
    if (psgi_tirp_kw(ps, "shape")) ok = !psgi_tirp_repeated(ps, has_shape, "shape") && (has_shape = psgi_tirp_parse_tuple(ps, &shape));
    else if (psgi_tirp_kw(ps, "dtype")) ok = psgi_tirp_string_dtype(ps, &dt);
    else if (psgi_tirp_kw(ps, "data")) ok = !psgi_tirp_repeated(ps, data, "data") && (data = psgi_tirp_parse_expr(ps)) != NULL;
    else if (psgi_tirp_kw(ps, "strides")) ok = !psgi_tirp_repeated(ps, strides.len, "strides") && psgi_tirp_parse_tuple(ps, &strides);
    else if (psgi_tirp_kw(ps, "elem_offset"))
      ok = !psgi_tirp_repeated(ps, elem_offset, "elem_offset") && (elem_offset = psgi_tirp_parse_expr(ps)) != NULL;
    else if (psgi_tirp_kw(ps, "scope")) {
      if (ps->tok.kind != TT_STRING) ok = !psgi_tirp_expected(ps, "a scope string");
      else {
        size_t n;
        ok = psgi_tirp_unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
        psgi_tirp_advance(ps);
      }
    } else if (psgi_tirp_kw(ps, "align")) {
      ok = psgi_tirp_int_literal(ps, &v);
      align = (int)v;
    } else if (psgi_tirp_kw(ps, "offset_factor")) {
      ok = psgi_tirp_int_literal(ps, &v);
      offset_factor = (int)v;
    } else if (psgi_tirp_kw(ps, "buffer_type")) {
      if (tt_is(&ps->tok, "auto") || (ps->tok.kind == TT_STRING && ps->tok.len == 4 && !memcmp(ps->tok.text, "auto", 4)))
        buffer_type = PSG_TIR_BUFFER_AUTO_BROADCAST;
      else if (ps->tok.kind == TT_STRING) buffer_type = PSG_TIR_BUFFER_DEFAULT;
      else ok = !psgi_tirp_expected(ps, "\"auto\" or \"default\"");
      if (ok) psgi_tirp_advance(ps);
    } else if (psgi_tirp_kw(ps, "axis_separators")) {
      ok = !psgi_tirp_repeated(ps, axis.len, "axis_separators") && !psgi_tirp_expect(ps, "[");
      while (ok && !tt_is(&ps->tok, "]")) {
        ok = psgi_tirp_int_literal(ps, &v) && PSGI_VEC_PUSH(ps->ctx, &axis, v);
        if (!psgi_tirp_accept(ps, ",")) break;
      }
      ok = ok && !psgi_tirp_expect(ps, "]");
    } else {
      ok = !psgi_tirp_expected(ps, "a buffer keyword (shape, dtype, data, strides, elem_offset, scope, align, offset_factor, buffer_type, axis_separators)");
    }
    if (ok && !psgi_tirp_accept(ps, ",")) break;
  }
  ok = ok && !psgi_tirp_expect(ps, ")");
  if (ok && !has_shape) ok = !psgi_tirp_error_at(ps, at, "a buffer needs a shape");
  ps->buf_data_given = data != NULL;
  if (ok && !data) BUILD(at, psg_tir_pointer_var_create(ps->ctx, name, dt, scope, SP(name_tok ? name_tok : at), &data));
  if (ok && data) {
    psg_tir_buffer_desc d = {0};
    d.name = name;
    d.data = data;
    d.dtype = dt;
    d.shape = shape.data;
    d.ndim = shape.len;
    d.strides = strides.data;
    d.nstrides = strides.len;
    d.elem_offset = elem_offset;
    d.axis_separators = axis.data;
    d.naxis_separators = axis.len;
    d.data_alignment = align;
    d.offset_factor = offset_factor;
    d.buffer_type = buffer_type;
    BUILD(at, psg_tir_buffer_create(ps->ctx, &d, SP(name_tok ? name_tok : at), &out));
  }
  psgi_tirp_release_all(shape.data, shape.len);
  psgi_tirp_release_all(strides.data, strides.len);
  PSGI_VEC_FREE(ps->ctx, &shape);
  PSGI_VEC_FREE(ps->ctx, &strides);
  PSGI_VEC_FREE(ps->ctx, &axis);
  psg_tir_release(data);
  psg_tir_release(elem_offset);
  return out;
}

/* Type annotations: T.int32, T.float32x4, T.handle, T.handle("float32"[, "scope"]).
 * A new var named `name` of that type. */
psg_tir_node *psgi_tirp_parse_var_annotation(tparser *ps, const char *name) {
  if (psgi_tirp_expect(ps, "T") || psgi_tirp_expect(ps, ".")) return NULL;
  ttoken t = ps->tok;
  psg_tir_dtype dt = is_name(&t) ? psgi_tir_script_dtype_word(t.text, t.len) : 0;
  if (!dt) {
    psgi_tirp_expected(ps, "a type (T.int32, T.float32, T.handle, ...)");
    return NULL;
  }
  psgi_tirp_advance(ps);
  psg_tir_node *out = NULL;
  if (psg_tir_dtype_is_handle(dt) && psgi_tirp_accept(ps, "(")) {
    psg_tir_dtype el;
    char scope[64] = "global";
    if (!psgi_tirp_string_dtype(ps, &el)) return NULL;
    if (psgi_tirp_accept(ps, ",")) {
      if (ps->tok.kind != TT_STRING) {
        psgi_tirp_expected(ps, "a scope string");
        return NULL;
      }
      size_t n;
      if (!psgi_tirp_unescape(ps, &ps->tok, scope, sizeof scope, false, &n)) return NULL;
      psgi_tirp_advance(ps);
    }
    if (psgi_tirp_expect(ps, ")")) return NULL;
    BUILD(&t, psg_tir_pointer_var_create(ps->ctx, name, el, scope, SP(&t), &out));
    return out;
  }
  BUILD(&t, psg_tir_var_create(ps->ctx, name, dt, NULL, SP(&t), &out));
  return out;
}
