/* Passage — what the pool and image op families share: reading a TVM data
 * layout string ("NCHW", "NHWC", "NCHW16c") for the positions of H and W,
 * the smallest value of a dtype (the pad value of max pooling), and the
 * resize computation (image.resize2d, also behind nn.upsampling). */
#ifndef PSG_OPS_SPATIAL_H
#define PSG_OPS_SPATIAL_H

#include "ops/kernel_util.h"

/* Positions of the H and W axes of `layout` for a tensor of rank `ndim`.
 * Uppercase letters are axes, "<digits><lowercase>" a split sub-axis. The
 * layout must have ndim axes, an H and a W, and H and W must not be split
 * (TVM's Pool2DRel rule). PSG_ERR_TYPE with call->msg otherwise. */
psg_status psgi_layout_hw(psgi_op_call *call, const char *layout, int ndim, int *h, int *w);
/* Position of axis letter `axis` (uppercase) in a layout, or -1. */
int psgi_layout_index(const char *layout, char axis);

/* The most negative finite value of a dtype (the lowest int for integers). */
double psgi_dtype_lowest(int dtype);
/* The largest finite value of a dtype. */
double psgi_dtype_highest(int dtype);

/* One resize, as TVM's topi _resize_2d computes it (ONNX Resize semantics). */
typedef struct psgi_resize_spec {
  int method;   /* PSGI_RESIZE_NEAREST / LINEAR / CUBIC */
  int coord;    /* PSGI_COORD_* */
  int rounding; /* PSGI_ROUND_* (nearest only) */
  double cubic_alpha;
  bool cubic_exclude;
  double extrapolation_value;
  double roi[4]; /* y1, x1, y2, x2: tf_crop_and_resize only */
} psgi_resize_spec;
enum { PSGI_RESIZE_NEAREST = 0, PSGI_RESIZE_LINEAR = 1, PSGI_RESIZE_CUBIC = 2 };
enum {
  PSGI_COORD_HALF_PIXEL = 0,
  PSGI_COORD_ALIGN_CORNERS = 1,
  PSGI_COORD_ASYMMETRIC = 2,
  PSGI_COORD_PYTORCH_HALF_PIXEL = 3,
  PSGI_COORD_TF_HALF_PIXEL_FOR_NN = 4,
  PSGI_COORD_TF_CROP_AND_RESIZE = 5
};
enum {
  PSGI_ROUND_ROUND = 0, /* half to even, as TVM's round */
  PSGI_ROUND_FLOOR = 1,
  PSGI_ROUND_CEIL = 2,
  PSGI_ROUND_PREFER_FLOOR = 3,
  PSGI_ROUND_PREFER_CEIL = 4
};
/* Resizes the H (axis h) and W (axis w) extents of `in` to those of `out`
 * (same rank; the other dims equal), writing every element of out. */
void psgi_resize2d(const psgi_resize_spec *spec, const psg_tensor *in, int h, int w, psg_tensor *out,
                   void *out_data);

#endif
