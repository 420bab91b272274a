/* The run report's parts (docs/report.md): the bounded line diff (minimal
 * edits, hunks, renumbering, the caps), HTML escaping, the DOT of a Relay
 * graph (labels, edges, constants folded, the node cap), Graphviz missing
 * from PATH as a clear error, and the instrument end to end: rows, changed
 * flags, counts, a diff, a failing pass and its diagnostic, the file. */
#include <unistd.h>
#include "check.h"
#include "report/report_internal.h"

static char *diff_of(psg_ctx *ctx, const char *a, const char *b, size_t max_edits, size_t max_lines, psgi_diff *d) {
  CHECK_OK(psgi_line_diff(ctx, a, strlen(a), b, strlen(b), max_edits, max_lines, d));
  return d->text;
}

static void test_diff_basic(void) {
  psg_ctx *ctx = check_ctx();
  psgi_diff d;
  CHECK_STR(diff_of(ctx, "a\nb\nc\n", "a\nb\nc\n", 100, 100, &d), "");
  CHECK(d.minimal && !d.added && !d.removed);
  psgi_diff_fini(ctx, &d);
  CHECK_STR(diff_of(ctx, "a\nb\nc\n", "a\nx\nc\n", 100, 100, &d), "@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n");
  CHECK_EQ_INT(d.added, 1);
  CHECK_EQ_INT(d.removed, 1);
  psgi_diff_fini(ctx, &d);
  /* Into and out of nothing, and a last line without its newline. */
  CHECK_STR(diff_of(ctx, "", "p\nq", 100, 100, &d), "@@ -0,0 +1,2 @@\n+p\n+q\n");
  psgi_diff_fini(ctx, &d);
  CHECK_STR(diff_of(ctx, "p\nq\n", "", 100, 100, &d), "@@ -1,2 +0,0 @@\n-p\n-q\n");
  psgi_diff_fini(ctx, &d);
  /* Minimal: one insertion in the middle is one line, not a rewrite. */
  CHECK_STR(diff_of(ctx, "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n9\n", 100, 100, &d),
            "@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n");
  psgi_diff_fini(ctx, &d);
  CHECK_CTX_CLEAN(ctx);
}

static void test_diff_hunks(void) {
  psg_ctx *ctx = check_ctx();
  psgi_buf a, b;
  psgi_buf_init(&a, ctx);
  psgi_buf_init(&b, ctx);
  for (int i = 0; i < 40; i++) {
    psgi_buf_printf(&a, "line %d\n", i);
    psgi_buf_printf(&b, i == 5 || i == 30 ? "LINE %d\n" : "line %d\n", i);
  }
  psgi_diff d;
  diff_of(ctx, a.data, b.data, 100, 100, &d);
  /* Two changes 25 lines apart: two hunks of 3 context lines each side. */
  CHECK(strstr(d.text, "@@ -3,7 +3,7 @@\n line 2\n") == d.text);
  CHECK(strstr(d.text, "@@ -28,7 +28,7 @@\n line 27\n line 28\n line 29\n-line 30\n+LINE 30\n") != NULL);
  psgi_diff_fini(ctx, &d);
  psgi_buf_fini(&a);
  psgi_buf_fini(&b);
  CHECK_CTX_CLEAN(ctx);
}

static void test_diff_renumbering(void) {
  psg_ctx *ctx = check_ctx();
  psgi_diff d;
  /* A binding removed at the top renumbers the others: only it shows. */
  const char *a = "%0 = abs(%x);\n%1 = exp(%x);\n%2 = add(%1, %1);\n%3 = tanh(%2);\n";
  const char *b = "%0 = exp(%x);\n%1 = add(%0, %0);\n%2 = tanh(%1);\n";
  CHECK_STR(diff_of(ctx, a, b, 100, 100, &d), "@@ -1,4 +1,3 @@\n-%0 = abs(%x);\n %0 = exp(%x);\n %1 = add(%0, %0);\n"
                                               " %2 = tanh(%1);\n");
  CHECK_EQ_INT(d.removed, 1);
  CHECK_EQ_INT(d.added, 0);
  psgi_diff_fini(ctx, &d);
  CHECK_CTX_CLEAN(ctx);
}

static void test_diff_caps(void) {
  psg_ctx *ctx = check_ctx();
  psgi_buf a, b;
  psgi_buf_init(&a, ctx);
  psgi_buf_init(&b, ctx);
  for (int i = 0; i < 2000; i++) {
    psgi_buf_printf(&a, "same\nold %d\n", i);
    psgi_buf_printf(&b, "same\nnew %d\n", i);
  }
  psgi_diff d;
  /* 4000 edits needed, 100 allowed: the middle shown whole, marked. */
  diff_of(ctx, a.data, b.data, 100, 100000, &d);
  CHECK(!d.minimal && !d.truncated);
  CHECK_EQ_INT(d.removed, 3999); /* the first "same" is common, the last "new 1999" differs */
  CHECK_EQ_INT(d.added, 3999);
  CHECK(strstr(d.text, "... more than 100 lines changed") == d.text);
  psgi_diff_fini(ctx, &d);
  /* The same diff minimal when allowed, and cut after 50 lines. */
  diff_of(ctx, a.data, b.data, 5000, 50, &d);
  CHECK(d.minimal && d.truncated);
  CHECK_EQ_INT(d.removed, 2000);
  CHECK_EQ_INT(d.added, 2000);
  CHECK(strstr(d.text, "... diff truncated after 50 lines (2000 lines removed, 2000 added in all)\n") != NULL);
  size_t lines = 0;
  for (const char *p = d.text; *p; p++) lines += *p == '\n';
  CHECK(lines <= 50 + 2 + 1);
  psgi_diff_fini(ctx, &d);
  psgi_buf_fini(&a);
  psgi_buf_fini(&b);
  CHECK_CTX_CLEAN(ctx);
}

/* Many far-apart changes in a long text of equal lines (every diagonal
 * matches, as masked Relay lines often do): exactly 1,000 edits, at the
 * cap, still found minimal (and fast: the greedy paths merge). */
static void test_diff_long_text(void) {
  psg_ctx *ctx = check_ctx();
  psgi_buf a, b;
  psgi_buf_init(&a, ctx);
  psgi_buf_init(&b, ctx);
  for (int i = 0; i < 100000; i++) {
    psgi_buf_puts(&a, "same\n");
    psgi_buf_puts(&b, i % 200 == 100 ? "other\n" : "same\n");
  }
  psgi_diff d;
  diff_of(ctx, a.data, b.data, 1000, 100, &d);
  CHECK(d.minimal && d.truncated);
  CHECK_EQ_INT(d.added, 500);
  CHECK_EQ_INT(d.removed, 500);
  psgi_diff_fini(ctx, &d);
  /* One edit fewer allowed: over the cap. */
  diff_of(ctx, a.data, b.data, 999, 100, &d);
  CHECK(!d.minimal);
  psgi_diff_fini(ctx, &d);
  psgi_buf_fini(&a);
  psgi_buf_fini(&b);
  CHECK_CTX_CLEAN(ctx);
}

static void test_html_escape(void) {
  psg_ctx *ctx = check_ctx();
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  const char *s = "<script>alert(\"x\" & 'y')</script>";
  CHECK(psgi_html_escape(&b, s, strlen(s)));
  CHECK_STR(b.data, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
  b.len = 0;
  CHECK(psgi_html_escape(&b, "plain", 5));
  CHECK_STR(b.data, "plain");
  psgi_buf_fini(&b);
  CHECK_CTX_CLEAN(ctx);
}

static const char *MODULE_TEXT =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32]) {\n"
    "  %0 = add(%x, 1f);\n"
    "  %1 = multiply(%0, 2f);\n"
    "  %2 = (%0, %1);\n"
    "  %2.1\n"
    "}\n";

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "test.relay", &m));
  return m;
}

static void test_dot(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, MODULE_TEXT);
  char *dot = NULL;
  size_t shown = 0, total = 0;
  CHECK_OK(psgi_relay_to_dot(m, "main", 100, &dot, &shown, &total));
  CHECK_EQ_INT(total, 5); /* %x, add, multiply, the tuple, .1 */
  CHECK_EQ_INT(shown, 5);
  CHECK(strstr(dot, "digraph relay {") == dot);
  CHECK(strstr(dot, "n0 [fillcolor=\"#d9ead3\", label=\"%x\"") != NULL);
  CHECK(strstr(dot, "label=\"add +1 const") != NULL);
  CHECK(strstr(dot, "label=\"multiply +1 const") != NULL);
  CHECK(strstr(dot, "n0 -> n1;") && strstr(dot, "n1 -> n2;") && strstr(dot, "n3 -> n4;"));
  CHECK(!strstr(dot, "capped"));
  psgi_free(ctx, dot);
  /* Capped: the nodes nearest the inputs, and a note saying so. */
  CHECK_OK(psgi_relay_to_dot(m, NULL, 2, &dot, &shown, &total));
  CHECK_EQ_INT(shown, 2);
  CHECK(strstr(dot, "graph capped: 2 of 5 nodes shown") != NULL);
  CHECK(!strstr(dot, "n2 ["));
  psgi_free(ctx, dot);
  CHECK_EQ_INT(psgi_relay_to_dot(m, "nope", 10, &dot, &shown, &total), PSG_ERR_NOT_FOUND);
  CHECK(dot == NULL);
  psg_ctx_clear_diags(ctx);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_dot_escapes_names(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *fn = NULL, *gv = NULL;
  psg_module *m = NULL, *m2 = NULL;
  CHECK_OK(psg_var_create(ctx, "a\"b\\c", NULL, NULL, &x));
  CHECK_OK(psg_function_create(ctx, &x, 1, x, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &m));
  CHECK_OK(psg_module_add(m, gv, fn, &m2));
  char *dot = NULL;
  size_t shown, total;
  CHECK_OK(psgi_relay_to_dot(m2, "main", 10, &dot, &shown, &total));
  CHECK(dot && strstr(dot, "label=\"%a\\\"b\\\\c\"") != NULL);
  psgi_free(ctx, dot);
  psg_module_release(m);
  psg_module_release(m2);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_dot_missing(void) {
  psg_ctx *ctx = check_ctx();
  char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  setenv("PATH", "/nonexistent", 1);
  char *svg = NULL;
  CHECK_EQ_INT(psgi_dot_to_svg(ctx, "digraph { a -> b }", 10000, &svg), PSG_ERR_NOT_FOUND);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "Graphviz's dot program was not found on PATH"));
  CHECK(svg == NULL);
  if (path) setenv("PATH", path, 1);
  free(path);
  psg_ctx_clear_diags(ctx);
  /* With dot (Debian's graphviz; CI installs it), an <svg> element. */
  if (!access("/usr/bin/dot", X_OK)) {
    CHECK_OK(psgi_dot_to_svg(ctx, "digraph { a -> b }", 30000, &svg));
    CHECK(svg && strncmp(svg, "<svg", 4) == 0 && strstr(svg, "</svg>"));
    psgi_free(ctx, svg);
    /* Bad DOT: dot's own message. */
    CHECK_EQ_INT(psgi_dot_to_svg(ctx, "digraph { a -> }", 30000, &svg), PSG_ERR_IO);
    d = psg_ctx_get_last_error(ctx);
    CHECK(d && strstr(psg_diag_message(d), "Graphviz's dot failed"));
    psg_ctx_clear_diags(ctx);
  }
  CHECK_CTX_CLEAN(ctx);
}

static psg_status fail_run(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  return psg_ctx_fail(psg_module_get_ctx(mod), PSG_ERR_PASS_FAILED, "broken <on purpose>");
}

static void test_instrument(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, MODULE_TEXT), *out = NULL;
  psg_instrument *rep = NULL;
  CHECK_OK(psg_report_instrument_create(ctx, NULL, PSG_REPORT_GRAPHS_NONE, &rep));
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_add_instrument(pc, rep));
  psg_pass *pipeline = NULL, *bad = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "sequential(InferType,FoldConstant,DeadCodeElimination)", &pipeline));
  psg_pass_info *info = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "Broken<1>", 0, NULL, 0, &info));
  CHECK_OK(psg_create_module_pass(ctx, info, fail_run, NULL, NULL, &bad));
  CHECK_OK(psg_pass_context_enter(pc));
  CHECK_OK(psg_pass_run(pipeline, m, pc, &out));
  psg_module *out2 = NULL;
  CHECK_EQ_INT(psg_pass_run(bad, out, pc, &out2), PSG_ERR_PASS_FAILED);
  CHECK_OK(psg_pass_context_exit(pc));
  char *html = psg_report_render(rep);
  CHECK(html != NULL);
  if (html) {
    CHECK(strstr(html, "<!DOCTYPE html>") == html);
    CHECK(strstr(html, "<span class=\"tog\">&#9662;</span>sequential</td>") != NULL);
    CHECK(strstr(html, "</span>InferType</td>") != NULL);
    CHECK(strstr(html, "</span>FoldConstant</td>") != NULL);
    /* The failing pass: its name escaped, its row marked, its message. */
    CHECK(strstr(html, "class=\"pass failed\"") != NULL);
    CHECK(strstr(html, "</span>Broken&lt;1&gt;</td>") != NULL);
    CHECK(strstr(html, "broken &lt;on purpose&gt;") != NULL);
    CHECK(!strstr(html, "<on purpose>"));
    /* No network, nothing external. */
    CHECK(!strstr(html, "http://") && !strstr(html, "https://") && !strstr(html, " src="));
    CHECK(strstr(html, "IR diff: ") != NULL);
    CHECK(strstr(html, "<td class=\"changed\">yes</td>") != NULL);
    CHECK(strstr(html, "<td class=\"changed\">failed</td>") != NULL);
    CHECK(strstr(html, "1 failed;") != NULL);
  }
  psg_free(html);
  char path[] = "/tmp/passage-report-test-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  CHECK_OK(psg_report_write(rep, path));
  FILE *f = fopen(path, "rb");
  char head[32] = {0};
  CHECK(f && fread(head, 1, 15, f) == 15);
  if (f) fclose(f);
  CHECK_STR(head, "<!DOCTYPE html>");
  unlink(path);
  CHECK_EQ_INT(psg_report_write(rep, "/nonexistent-dir/x.html"), PSG_ERR_IO);
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "cannot write the run report /nonexistent-dir/x.html"));
  psg_instrument *bad_graphs = NULL;
  CHECK_EQ_INT(psg_report_instrument_create(ctx, NULL, 7, &bad_graphs), PSG_ERR_INVALID_ARGUMENT);
  CHECK(bad_graphs == NULL);
  psg_ctx_clear_diags(ctx);
  psg_pass_context_release(pc);
  psg_instrument_release(rep);
  psg_pass_release(pipeline);
  psg_pass_release(bad);
  psg_pass_info_release(info);
  psg_module_release(m);
  psg_module_release(out);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_diff_basic);
  RUN_TEST(test_diff_hunks);
  RUN_TEST(test_diff_renumbering);
  RUN_TEST(test_diff_caps);
  RUN_TEST(test_diff_long_text);
  RUN_TEST(test_html_escape);
  RUN_TEST(test_dot);
  RUN_TEST(test_dot_escapes_names);
  RUN_TEST(test_dot_missing);
  RUN_TEST(test_instrument);
  return check_finish();
}
