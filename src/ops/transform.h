/* Passage — internals shared by the shape and data movement ops (issue 5):
 * the one strided-copy helper every data-moving kernel uses, attribute
 * readers with the family's error messages, and the relations and kernels
 * that live in the other transform_*.c files (the table is in transform.c). */
#ifndef PSG_OPS_TRANSFORM_H
#define PSG_OPS_TRANSFORM_H

#include "ops/kernel_util.h"

/* Views may split every axis in two (tile, repeat), plus one spare. */
enum { PSGI_COPY_MAX_RANK = 2 * PSG_MAX_RANK + 1 };

/* Copies an n-d block of elements of `esize` bytes: for every index i of
 * `dims` (row-major), dst[dst_off + i.dst_strides] = src[src_off + i.src_strides]
 * with strides in elements (negative and zero strides allowed). Rank 0 copies
 * one element; a zero extent copies nothing. */
void psgi_strided_copy(const int64_t *dims, int ndim, size_t esize, void *dst, int64_t dst_off,
                       const int64_t *dst_strides, const void *src, int64_t src_off, const int64_t *src_strides);

/* The int list attr `key` (absent or None: 0 entries) into out[max]; *n gets
 * the count. A PSG_ERR_TYPE failure naming the op when it is not a list of
 * ints or is longer than max. */
psg_status psgi_tf_ints(psgi_op_call *call, const char *key, int64_t *out, int max, int *n);
/* True when attr `key` is absent or None (TVM's Optional<...> attrs). */
bool psgi_tf_attr_is_none(const psgi_op_call *call, const char *key);
/* psgi_norm_axis with the op's name in front of the message. */
psg_status psgi_tf_axis(psgi_op_call *call, int64_t axis, int ndim, int *out);
/* The op's name, for messages ("reshape: ..."). */
const char *psgi_tf_name(const psgi_op_call *call);
/* The dtype attr `key` (a DTYPE attr or a dtype name string), or dflt. */
int psgi_tf_dtype_attr(const psgi_op_call *call, const char *key, int dflt);
/* "(0, 0)" for a list of ints into buf; returns buf. */
const char *psgi_tf_list_str(const int64_t *v, int n, char *buf, size_t len);
/* The tensor held by argument i (kernels run after the relation, so it is
 * one). */
const psg_tensor *psgi_tf_arg(psgi_value *const *args, size_t i);

/* transform.c: broadcast_to's kernel (to out_type's shape), also broadcast_to_like's. */
psg_status psgi_broadcast_to_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                    const psg_type *out_type, psgi_value **out);

/* transform_join.c */
psg_status psgi_concatenate_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_concatenate_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                   psgi_value **out);
psg_status psgi_stack_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_stack_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                             psgi_value **out);
psg_status psgi_split_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_split_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                             psgi_value **out);

/* transform_slice.c */
psg_status psgi_strided_slice_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_strided_slice_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out);

/* transform_index.c */
psg_status psgi_take_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_take_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                            psgi_value **out);
psg_status psgi_gather_nd_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_gather_nd_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                 psgi_value **out);

/* transform_sort.c */
psg_status psgi_argsort_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_argsort_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                               psgi_value **out);
psg_status psgi_topk_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out);
psg_status psgi_topk_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                            psgi_value **out);

/* transform_layout.c */
psg_status psgi_layout_transform_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                     const psg_type **out);
psg_status psgi_layout_transform_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                        const psg_type *out_type, psgi_value **out);

#endif
