/* Passage — values from outside a TVMScript text: the names a decorated
 * Python function reads from its closure or globals (`n = 16`,
 * `dtype = "float32"`, a captured tir.Var, a Buffer, `op = T.Add`).
 * passage.script builds one of these per parse and hands it to
 * psg_tir_script_parse_env; a name the text does not define is looked up
 * here before it is an "undefined name" error. */
#ifndef PASSAGE_TVMSCRIPT_ENV_H
#define PASSAGE_TVMSCRIPT_ENV_H

#include "passage/tvmscript.h"

PSG_BEGIN_DECLS

typedef struct psg_tir_script_env psg_tir_script_env;

PSG_API psg_status psg_tir_script_env_create(psg_ctx *ctx, psg_tir_script_env **out);
PSG_API void psg_tir_script_env_release(psg_tir_script_env *env); /* NULL-safe */

/* Each binds `name` (copied; a later binding of the same name replaces the
 * earlier one). Literals read as if written in the text: an int as an int
 * literal (int32 if it fits, else int64), a float as a float literal, a
 * string as a string literal (so a dtype string works where the text wants
 * "float32"), a bool as True/False. */
PSG_API psg_status psg_tir_script_env_add_int(psg_tir_script_env *env, const char *name, int64_t value);
PSG_API psg_status psg_tir_script_env_add_float(psg_tir_script_env *env, const char *name, double value);
PSG_API psg_status psg_tir_script_env_add_bool(psg_tir_script_env *env, const char *name, bool value);
PSG_API psg_status psg_tir_script_env_add_string(psg_tir_script_env *env, const char *name, const char *value);
/* A PrimExpr (retained): uses of the name are that very node, so a captured
 * Var is the same Var in the parsed function. An IterVar is taken too: the
 * name is then its var, and the IterVar itself as T.attr's node. */
PSG_API psg_status psg_tir_script_env_add_expr(psg_tir_script_env *env, const char *name, psg_tir_node *expr);
/* A Buffer (retained): `name[i]`, `name.data` as for a buffer of the text. */
PSG_API psg_status psg_tir_script_env_add_buffer(psg_tir_script_env *env, const char *name, psg_tir_node *buffer);
/* `name` stands for `T.<t_name>` (op = T.Add makes op(a, b) read T.Add(a, b)).
 * t_name must be a plain identifier. */
PSG_API psg_status psg_tir_script_env_add_alias(psg_tir_script_env *env, const char *name, const char *t_name);

/* psg_tir_script_parse with the names of `env` (NULL: none) visible. The
 * parse keeps a little state in `env`: one parse at a time per env. */
PSG_API psg_status psg_tir_script_parse_env(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                            psg_tir_script_env *env, psg_tir_script **out);

PSG_END_DECLS
#endif
