/* Passage — Relay text parser: the TVMScript PrimFunc blocks of a mixed text,
 * skipped by the Relay pass and parsed afterwards as TVMScript. */
#include <stdio.h>
#include "text/relay_parse_internal.h"

/* PrimFuncs in a Relay text ------------------------------------------------------
 * (docs/text-format.md, "Relay and TIR in one file"). A "@T.prim_func" in
 * column 1 where a def may start opens a TVMScript block. Its extent follows
 * Python's layout alone: the decorator lines, the def line, then every line
 * that is blank, indented, a '#' comment or inside brackets left open; it ends
 * before the next other line in column 1. The Relay lexer skips the block;
 * after the Relay parse, all blocks go to the TVMScript parser as one text that
 * keeps their lines and columns (the rest of the file reduced to its newlines),
 * so its diagnostics carry this file's real positions. */

static const char *line_end(const char *p, const char *end) {
  while (p < end && *p != '\n') p++;
  return p;
}

static bool blank_line(const char *p, const char *le) {
  while (p < le && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
  return p == le;
}

/* Bracket depth after the line [p, le), skipping strings and a comment. */
static int bracket_depth(const char *p, const char *le, int depth) {
  for (; p < le; p++) {
    char c = *p;
    if (c == '#') break;
    if (c == '"' || c == '\'') {
      for (p++; p < le && *p != c; p++)
        if (*p == '\\' && p + 1 < le) p++;
      if (p == le) break;
    } else if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
  }
  return depth;
}

/* The end of the block starting at `start` (the end of its last non-blank
 * line); *def_line is its def line (NULL if the decorators are followed by
 * no def line). */
static const char *prim_block_end(const char *start, const char *end, const char **def_line) {
  *def_line = NULL;
  const char *p = start, *last = start;
  int depth = 0;
  while (p < end) {
    const char *le = line_end(p, end);
    bool blank = blank_line(p, le), take = depth > 0 || blank || *p == ' ' || *p == '\t' || *p == '#';
    if (!take && !*def_line && *p == '@') take = true;
    if (!take && !*def_line && le - p > 4 && !memcmp(p, "def", 3) && (p[3] == ' ' || p[3] == '\t')) {
      /* "def name(": a Relay "def @f" after a stray decorator is not the block's */
      const char *q = p + 3;
      while (q < le && (*q == ' ' || *q == '\t')) q++;
      take = q < le && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'));
      if (take) *def_line = p;
    }
    if (!take) break;
    depth = bracket_depth(p, le, depth);
    if (!blank) last = le;
    p = le < end ? le + 1 : le;
  }
  return last;
}

/* At "@T.prim_func": records the block, adds its def to `defs` (the PrimFunc
 * comes later) and moves the lexer past it. */
psg_status psgi_rp_skip_prim_block(parser *ps, entry_vec *defs) {
  token at = ps->tok;
  const char *start = at.text - 1, *def_line = NULL;
  const char *end = prim_block_end(start, ps->lx.end, &def_line);
  /* The lexer restarts at `end`, on the block's last line. */
  int line = at.line;
  const char *line_start = start;
  for (const char *q = start; q < end; q++)
    if (*q == '\n') {
      line++;
      line_start = q + 1;
    }
  ps->lx.p = end;
  ps->lx.line = line;
  ps->lx.line_start = line_start;
  ps->next = lexer_next(&ps->lx);
  psgi_rp_advance(ps);
  if (!def_line) return psgi_rp_error_at(ps, &at, "expected a line 'def NAME(...):' after @T.prim_func");
  /* The function's name: the word after "def" (prim_block_end saw it start). */
  const char *n = def_line + 3;
  while (n < end && (*n == ' ' || *n == '\t')) n++;
  const char *ne = n;
  while (ne < end && (*ne == '_' || (*ne >= 'a' && *ne <= 'z') || (*ne >= 'A' && *ne <= 'Z') ||
                      (ne > n && *ne >= '0' && *ne <= '9')))
    ne++;
  int def_lineno = at.line;
  for (const char *q = start; q < def_line; q++) def_lineno += *q == '\n';
  token name = {TOK_GLOBAL, n, (size_t)(ne - n), def_lineno, (int)(n - def_line) + 1, def_line};
  psg_expr *gv = NULL;
  psg_status st = psgi_rp_global_ref(ps, &name, &gv);
  for (size_t i = 0; !st && i < defs->len; i++)
    if (defs->data[i].gv == gv) st = psgi_rp_error_at(ps, &name, "@%.*s is defined twice", (int)name.len, name.text);
  psgi_module_entry en = {gv, NULL, NULL, NULL};
  prim_block b = {start, end, defs->len, at};
  if (!st && !(PSGI_VEC_PUSH(ps->ctx, defs, en) && PSGI_VEC_PUSH(ps->ctx, &ps->prims, b))) st = psgi_nomem(ps->ctx);
  if (st) psg_expr_release(gv);
  return st;
}

/* Parses every block as TVMScript and puts each PrimFunc in its def. */
psg_status psgi_rp_parse_prim_blocks(parser *ps, psgi_module_entry *defs, const char *text_end) {
  size_t cap = (size_t)(text_end - ps->src);
  char *buf = psgi_alloc(ps->ctx, cap ? cap : 1), *o = buf;
  if (!buf) return psgi_nomem(ps->ctx);
  const char *p = ps->src;
  for (size_t i = 0; i < ps->prims.len; i++) {
    const prim_block *b = &ps->prims.data[i];
    for (; p < b->start; p++)
      if (*p == '\n') *o++ = '\n';
    memcpy(o, b->start, (size_t)(b->end - b->start));
    o += b->end - b->start;
    p = b->end;
  }
  psg_tir_script *script = NULL;
  psg_status st = psg_tir_script_parse(ps->ctx, buf, (size_t)(o - buf), ps->file, &script);
  psgi_free(ps->ctx, buf);
  if (st == PSG_ERR_PARSE) {
    ps->errors++;
    return PSG_OK; /* its diagnostics are recorded; the module fails with the others */
  }
  if (st) return st;
  if (psg_tir_script_count(script) != ps->prims.len) {
    psgi_rp_error_at(ps, &ps->prims.data[0].at, "the @T.prim_func blocks hold %zu functions, expected %zu",
             psg_tir_script_count(script), ps->prims.len);
  } else {
    for (size_t i = 0; i < ps->prims.len; i++) {
      psgi_module_entry *e = &defs[ps->prims.data[i].def_index];
      if (strcmp(psg_tir_script_name(script, i), e->gv->u.gvar.name)) {
        psgi_rp_error_at(ps, &ps->prims.data[i].at, "this block defines '%s', expected '%s'", psg_tir_script_name(script, i),
                 e->gv->u.gvar.name);
        break;
      }
      e->prim = psg_tir_script_get(script, i);
      e->prim_ops = psgi_tir_prim_func_ops();
      e->prim_ops->retain(e->prim);
    }
  }
  psg_tir_script_release(script);
  return PSG_OK;
}
