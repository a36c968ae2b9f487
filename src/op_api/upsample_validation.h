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
// Step 3: the tensor is 5-D.
int32_t CheckRank5(const char *api, const char *name, const aclTensor &t);
// Step 3: an int array has the expected number of elements.
int32_t CheckArraySize(const char *api, const char *name, const aclIntArray &a, size_t expected);
// Step 3: the tensor's format is one the op supports.
int32_t CheckFormat(const char *api, const op_host::OpDef &def, const char *name, const aclTensor &t);
// Step 4: the elements [first, end) of an int array are > 0.
int32_t CheckPositive(const char *api, const char *name, const aclIntArray &a, size_t first);
// Step 4: the tensor's logical (N, C, D, H, W) shape equals expected (read by its format).
int32_t CheckLogicalShape(const char *api, const char *name, const aclTensor &t,
                          const std::vector<int64_t> &expected, const char *expectedFrom);
// Step 5: when all three scales are > 0, out[i] == floor(in[i] * scales[i]) (CANN's InferShape).
int32_t CheckScales(const char *api, const int64_t in[3], const int64_t out[3], const double scales[3]);

// Step 4 for the tensor of the output's extent (the forward's out, the backward's gradOut): its logical
// shape is (N, C, outputSize), N and C the input's (inputNc, taken from expectedFrom).
int32_t CheckOutputShape(const char *api, const char *name, const aclTensor &t, const int64_t inputNc[2],
                         const aclIntArray &outputSize, const char *expectedFrom);
// Step 5 for both tensors, the source before the destination, then the scales against the input's
// D, H, W (inputDhw) and outputSize.
int32_t CheckMemoryAndScales(const char *api, const char *sourceName, const aclTensor &source,
                             const char *destinationName, const aclTensor &destination,
                             const int64_t inputDhw[3], const aclIntArray &outputSize,
                             const double scales[3]);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_UPSAMPLE_VALIDATION_H_
