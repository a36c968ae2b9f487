// The validation steps both ops share (docs/spec.md §4), each reporting a message that names the
// parameter and its values and returning the CANN code (ACLNN_SUCCESS when the check passes).
#ifndef TRILINEAR3D_OP_API_UPSAMPLE_VALIDATION_H_
#define TRILINEAR3D_OP_API_UPSAMPLE_VALIDATION_H_

#include <cstdint>
#include <vector>

#include "op_host/op_defs.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::op_api {

// Step 2: a's dtype is one the op supports and b has the same.
int32_t CheckDataTypes(const char *api, const op_host::OpDef &def, const char *aName, const aclTensor &a,
                       const char *bName, const aclTensor &b);
// Step 3: the tensor is 5-D (CheckRank: of the given rank).
int32_t CheckRank5(const char *api, const char *name, const aclTensor &t);
int32_t CheckRank(const char *api, const char *name, const aclTensor &t, size_t rank);
// An int array has at least `least` elements (CANN's 2-D forward reads the first two of outputSize).
int32_t CheckArraySizeAtLeast(const char *api, const char *name, const aclIntArray &a, size_t least);
// Step 3: an int array has the expected number of elements.
int32_t CheckArraySize(const char *api, const char *name, const aclIntArray &a, size_t expected);
// Step 3: the tensor's format is one the op supports.
int32_t CheckFormat(const char *api, const op_host::OpDef &def, const char *name, const aclTensor &t);
// Step 4: the elements [first, end) of an int array are > 0.
int32_t CheckPositive(const char *api, const char *name, const aclIntArray &a, size_t first);
// Step 4: the tensor's logical (N, C, D, H, W) shape equals expected (read by its format).
int32_t CheckLogicalShape(const char *api, const char *name, const aclTensor &t,
                          const std::vector<int64_t> &expected, const char *expectedFrom);
// A tensor of rank 3 to 5 as logical (N, C, spatial...) dims: NCL, NCHW or NCDHW, read by its format
// (tensor_checks.h's LogicalNcdhw without the unit axes its rank lacks).
std::vector<int64_t> LogicalDims(const aclTensor &t);
// The logical dims equal expected (N, C, spatial...), reported in the layout of the tensor's rank.
int32_t CheckLogicalDims(const char *api, const char *name, const aclTensor &t,
                         const std::vector<int64_t> &expected, const char *expectedFrom);
// A 2-D backward's inputSize, given in the order of `format` (N, H, W, C for NHWC, as CANN's op_api reads
// it), as (N, C, H, W). inputSize has 4 elements.
std::vector<int64_t> InputSizeAsNchw(const aclIntArray &inputSize, int32_t format);
// The view has no element.
bool IsEmpty(const aclTensor &t);

// The D, H, W scales the plan takes from a 2-D operator's scalesH / scalesW, by CANN's rule for
// aclnnUpsampleBilinear2d and aclnnUpsampleBilinear2dBackwardV2: both, each as its axis's factor, when both
// give the output sizes (floor(in * s) = out); otherwise none, and the sizes decide. inHw / outHw: the H
// and W of the (forward) input and output.
void Bilinear2dAxisScales(const int64_t inHw[2], const int64_t outHw[2], double scalesH, double scalesW,
                          double axisScales[3]);

// Step 5: when all three scales are > 0, out[i] == floor(in[i] * scales[i]) (CANN's InferShape).
int32_t CheckScales(const char *api, const int64_t in[3], const int64_t out[3], const double scales[3]);

// Step 4 for the tensor of the output's extent (the forward's out, the backward's gradOut): its logical
// shape is (N, C, outputSize), N and C the input's (inputNc, taken from expectedFrom).
int32_t CheckOutputShape(const char *api, const char *name, const aclTensor &t, const int64_t inputNc[2],
                         const aclIntArray &outputSize, const char *expectedFrom);
// Step 5 for both tensors (tensor_checks.h's CheckTensorMemory), the source before the destination.
int32_t CheckMemory(const char *api, const char *sourceName, const aclTensor &source,
                    const char *destinationName, const aclTensor &destination);
// Step 5 for both tensors, the source before the destination, then the scales against the input's
// D, H, W (inputDhw) and outputSize.
int32_t CheckMemoryAndScales(const char *api, const char *sourceName, const aclTensor &source,
                             const char *destinationName, const aclTensor &destination,
                             const int64_t inputDhw[3], const aclIntArray &outputSize,
                             const double scales[3]);

// The nearest operators' shared checks (docs/spec.md §4), after the null checks, in CANN's order for
// the nearest group: dtypes (self's supported, out's the same), ranks and the size arrays' lengths,
// formats, sizes > 0 (C > 0 and N >= 0, or N > 0 where the operator refuses an empty batch), the
// shapes, then step 5 for both tensors.
struct NearestRule {
  const char *api;
  const op_host::OpDef &def;
  size_t rank;               // 3 (NCL), 4 (NCHW) or 5 (NCDHW)
  bool emptyBatchOk = true;  // N = 0 is an empty no-op (else refused, as the exact 1-D / 2-D forwards do)
  const char *gradOutName = "gradOut";  // the backward's source as the header names it
};
int32_t CheckNearestForward(const NearestRule &rule, const aclTensor &self, const aclIntArray &outputSize,
                            const aclTensor &out);
// The backward: inputSize (N, C, spatial) in logical order whatever the tensors' format, gradOut of
// (N, C, outputSize), gradInput (named gradInputName) of inputSize.
int32_t CheckNearestBackward(const NearestRule &rule, const aclTensor &gradOut, const aclIntArray &outputSize,
                             const aclIntArray &inputSize, const char *gradInputName,
                             const aclTensor &gradInput);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_UPSAMPLE_VALIDATION_H_
