/* Passage — the default schedules of reductions and pooling (TVM's x86
 * schedule_reduce and schedule_pool in spirit): the injective producers
 * (pooling's padding among them) inlined, each reduction stage's leading
 * spatial loops fused and parallel with the reduction loops innermost and in
 * their order, the outputs after them as injective nests (default_schedule.c
 * does the nests for every stage the family leaves). */
#include "lower/default_schedule.h"

psg_status psgi_dsch_reduce(psgi_dsch *d, const char **kind) {
  *kind = "reduce";
  return psgi_dsch_inline_all(d, NULL);
}

psg_status psgi_dsch_pool(psgi_dsch *d, const char **kind) {
  *kind = "pool";
  return psgi_dsch_inline_all(d, NULL);
}
