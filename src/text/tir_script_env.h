/* Passage — the parser's side of psg_tir_script_env (tir_script_env.c):
 * literal names become tokens, node names become symbols. */
#ifndef PSG_TIR_SCRIPT_ENV_INTERNAL_H
#define PSG_TIR_SCRIPT_ENV_INTERNAL_H

#include "passage/tvmscript_env.h"
#include "text/tir_lex.h"
#include "tir/tir_internal.h"

/* The next token of `lx`, with a name bound to a literal or an alias in
 * `env` replaced by the literal's tokens (located at the name). `prev` is
 * the token before it: a name after '.' (an attribute) is never replaced,
 * nor one followed by '=' inside brackets (a keyword argument). */
ttoken psgi_tir_script_env_next(psg_tir_script_env *env, tlexer *lx, const ttoken *prev);
/* The node bound to the name, or NULL; *is_buffer tells a Buffer. */
psg_tir_node *psgi_tir_script_env_node(const psg_tir_script_env *env, const char *name, size_t len, bool *is_buffer);

#endif
