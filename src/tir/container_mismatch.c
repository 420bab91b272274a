/* Passage — the first structural mismatch of two arrays or string-keyed maps
 * of TIR values as ObjectPaths (TVM's get_first_structural_mismatch on
 * containers; include/passage/object_path.h). Elements compare with
 * psg_tir_structural_equal. */
#include "passage/object_path.h"

#include <string.h>

/* Hands out the two paths just made, or releases both when either failed. */
static psg_status pair(psg_status sa, psg_object_path *pa, psg_status sb, psg_object_path *pb,
                       psg_object_path **out_a, psg_object_path **out_b) {
  if (sa != PSG_OK || sb != PSG_OK) {
    psg_object_path_release(pa);
    psg_object_path_release(pb);
    return sa != PSG_OK ? sa : sb;
  }
  *out_a = pa;
  *out_b = pb;
  return PSG_OK;
}

psg_status psg_tir_array_first_mismatch(psg_object_path *root_a, const psg_tir_node *const *a, size_t na,
                                        psg_object_path *root_b, const psg_tir_node *const *b, size_t nb,
                                        psg_object_path **out_a, psg_object_path **out_b) {
  if (!out_a || !out_b) return PSG_ERR_INVALID_ARGUMENT;
  *out_a = *out_b = NULL;
  if (!root_a || !root_b || (na && !a) || (nb && !b)) return PSG_ERR_INVALID_ARGUMENT;
  psg_object_path *pa = NULL, *pb = NULL;
  size_t common = na < nb ? na : nb;
  for (size_t i = 0; i < common; i++) {
    if (psg_tir_structural_equal(a[i], b[i])) continue;
    psg_status sa = psg_object_path_array_index(root_a, (int64_t)i, &pa);
    psg_status sb = psg_object_path_array_index(root_b, (int64_t)i, &pb);
    return pair(sa, pa, sb, pb, out_a, out_b);
  }
  if (na == nb) return PSG_OK;
  psg_status sa = na < nb ? psg_object_path_missing_array_element(root_a, (int64_t)common, &pa)
                          : psg_object_path_array_index(root_a, (int64_t)common, &pa);
  psg_status sb = nb < na ? psg_object_path_missing_array_element(root_b, (int64_t)common, &pb)
                          : psg_object_path_array_index(root_b, (int64_t)common, &pb);
  return pair(sa, pa, sb, pb, out_a, out_b);
}

static ptrdiff_t find_key(const char *const *keys, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(keys[i], key) == 0) return (ptrdiff_t)i;
  return -1;
}

psg_status psg_tir_map_first_mismatch(psg_object_path *root_a, const char *const *keys_a,
                                      const psg_tir_node *const *a, size_t na, psg_object_path *root_b,
                                      const char *const *keys_b, const psg_tir_node *const *b, size_t nb,
                                      psg_object_path **out_a, psg_object_path **out_b) {
  if (!out_a || !out_b) return PSG_ERR_INVALID_ARGUMENT;
  *out_a = *out_b = NULL;
  if (!root_a || !root_b || (na && (!a || !keys_a)) || (nb && (!b || !keys_b))) return PSG_ERR_INVALID_ARGUMENT;
  psg_object_path *pa = NULL, *pb = NULL;
  for (size_t i = 0; i < na; i++) {
    ptrdiff_t j = find_key(keys_b, nb, keys_a[i]);
    if (j >= 0 && psg_tir_structural_equal(a[i], b[j])) continue;
    psg_status sa = psg_object_path_map_value(root_a, keys_a[i], &pa);
    psg_status sb = j >= 0 ? psg_object_path_map_value(root_b, keys_a[i], &pb)
                           : psg_object_path_missing_map_entry(root_b, &pb);
    return pair(sa, pa, sb, pb, out_a, out_b);
  }
  for (size_t j = 0; j < nb; j++) {
    if (find_key(keys_a, na, keys_b[j]) >= 0) continue;
    psg_status sa = psg_object_path_missing_map_entry(root_a, &pa);
    psg_status sb = psg_object_path_map_value(root_b, keys_b[j], &pb);
    return pair(sa, pa, sb, pb, out_a, out_b);
  }
  return PSG_OK;
}
