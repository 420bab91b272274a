/* Threads sharing one context and one module run the -O3 pipeline at once:
 * every result is the single-threaded one, and afterwards nothing is left
 * alive. Before the first thread exists the process is single-threaded and
 * reference counts, the pool lock and type interning skip their atomics
 * (support.h, psgi_single_threaded); this checks the other path, and objects
 * made on the first path released on the second. */
#include <pthread.h>
#include "pass_check.h"

/* Two conv2d + batch_norm layers, the constants in the metadata section:
 * FoldConstant evaluates, FoldScaleAxis rewrites, FuseOps groups. */
#define C2(data) "    {\"dtype\": \"float32\", \"shape\": [2], \"data\": \"" data "\"}"
#define W(data) "    {\"dtype\": \"float32\", \"shape\": [2, 2, 1, 1], \"data\": \"" data "\"}"
static const char *const program =
    HDR "def @main(%x: Tensor[(1, 2, 4, 4), float32]) {\n"
        "  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[0, 0, 0, 0], channels=2, kernel_size=[1, 1]);\n"
        "  %1 = nn.batch_norm(%0, meta[relay.Constant][2], meta[relay.Constant][3], meta[relay.Constant][4],"
        " meta[relay.Constant][5]);\n"
        "  %2 = nn.relu(%1.0);\n"
        "  %3 = nn.conv2d(%2, meta[relay.Constant][1], padding=[0, 0, 0, 0], channels=2, kernel_size=[1, 1]);\n"
        "  %4 = nn.batch_norm(%3, meta[relay.Constant][5], meta[relay.Constant][4], meta[relay.Constant][3],"
        " meta[relay.Constant][2]);\n"
        "  nn.relu(%4.0)\n"
        "}\n"
        "#[metadata]\n{\n  \"relay.Constant\": [\n" W("AACAPwAAgL8AAAA/AAAAQA==") ",\n" W(
            "AAAAPwAAgD8AAADAAABAQA==") ",\n" C2("AADAPwAAAD8=") ",\n" C2("zczMPc3MTL4=") ",\n" C2("mpmZPjMzMz8=") ",\n" C2("AAAAQAAAgD4=") "\n  ]\n}\n";

typedef struct job {
  psg_ctx *ctx;
  psg_module *in, *want;
  int bad;
} job;

static psg_module *run_o3(psg_ctx *ctx, psg_module *in) {
  psg_pass_context *pc = NULL;
  psg_pass *p = NULL;
  psg_module *out = NULL;
  if (!psg_pass_context_create(ctx, &pc) && !psg_pass_context_set_opt_level(pc, 3) &&
      !psg_pipeline_parse(ctx, "O3", &p))
    psg_pass_run(p, in, pc, &out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  return out;
}

static void *work(void *arg) {
  job *j = arg;
  for (int i = 0; i < 40; i++) {
    psg_module *got = run_o3(j->ctx, j->in);
    if (!got || !psg_module_structural_equal(got, j->want, NULL)) j->bad++;
    psg_module_release(got);
  }
  return NULL;
}

static void test_threads_run_one_module(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *in = parse(ctx, program);
  CHECK(in != NULL);
  psg_module *want = in ? run_o3(ctx, in) : NULL;
  CHECK(want != NULL);
  if (!want) {
    psg_module_release(in);
    CHECK_CTX_CLEAN(ctx);
    return;
  }
  /* The pipeline did fold: no batch_norm, no multiply left. */
  char *text = NULL;
  CHECK_OK(psg_module_print(want, PSG_PRINT_NO_METADATA, &text, NULL));
  CHECK(text && !strstr(text, "batch_norm") && !strstr(text, "multiply") && strstr(text, "Primitive"));
  psg_free(text);
  enum { NTHREADS = 4 };
  pthread_t th[NTHREADS];
  job jobs[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    jobs[i] = (job){ctx, in, want, 0};
    CHECK_EQ_INT(pthread_create(&th[i], NULL, work, &jobs[i]), 0);
  }
  int bad = 0;
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    bad += jobs[i].bad;
  }
  CHECK_EQ_INT(bad, 0);
  psg_module_release(want);
  psg_module_release(in);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_threads_run_one_module);
  return check_finish();
}
