// Records the largest single operator-new request of the process, so that a test can check that
// a rejected call did not allocate something sized by an overflowing product. Linked into the
// executable, the replacement also covers the library (it resolves operator new dynamically).
#ifndef TRILINEAR3D_TESTS_SUPPORT_ALLOCATION_PROBE_H_
#define TRILINEAR3D_TESTS_SUPPORT_ALLOCATION_PROBE_H_

#include <cstddef>

namespace trilinear3d::test {

void ResetLargestAllocation();
size_t LargestAllocation();

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_ALLOCATION_PROBE_H_
