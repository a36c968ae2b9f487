// aclnn meta objects: scalars of every dtype, bool arrays, array sizes, and the tensor getters checked
// against the values the tensors were created with.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "aclnn/aclnn_base.h"

namespace trilinear3d::test {
namespace {

struct ScalarCase {
  aclDataType type;
  size_t size;
};

// Every aclDataType with a fixed element size.
const ScalarCase kScalarCases[] = {
    {ACL_FLOAT, 4},     {ACL_FLOAT16, 2},     {ACL_INT8, 1},   {ACL_INT32, 4},
    {ACL_UINT8, 1},     {ACL_INT16, 2},       {ACL_UINT16, 2}, {ACL_UINT32, 4},
    {ACL_INT64, 8},     {ACL_UINT64, 8},      {ACL_DOUBLE, 8}, {ACL_BOOL, 1},
    {ACL_COMPLEX64, 8}, {ACL_COMPLEX128, 16}, {ACL_BF16, 2},   {ACL_COMPLEX32, 4}};

TEST(Scalars, EveryFixedSizeDtype) {
  for (const ScalarCase &c : kScalarCases) {
    // Exactly the element's bytes are readable: AddressSanitizer reports a read beyond them.
    std::vector<unsigned char> value(c.size, 0x11);
    aclScalar *scalar = aclCreateScalar(value.data(), c.type);
    ASSERT_NE(scalar, nullptr) << c.type;
    std::memset(value.data(), 0, value.size());  // the scalar holds its own copy
    EXPECT_EQ(aclDestroyScalar(scalar), ACL_SUCCESS) << c.type;
  }
  double d = 2.5;
  bool b = true;
  int64_t i = -7;
  for (aclScalar *scalar :
       {aclCreateScalar(&d, ACL_DOUBLE), aclCreateScalar(&b, ACL_BOOL), aclCreateScalar(&i, ACL_INT64)}) {
    ASSERT_NE(scalar, nullptr);
    EXPECT_EQ(aclDestroyScalar(scalar), ACL_SUCCESS);
  }
}

TEST(Scalars, DtypesWithoutAFixedSizeAndNullsAreRejected) {
  int64_t value = 1;
  for (int type : {static_cast<int>(ACL_STRING), static_cast<int>(ACL_INT4), static_cast<int>(ACL_UINT1),
                   static_cast<int>(ACL_DT_UNDEFINED), 5, 99}) {
    EXPECT_EQ(aclCreateScalar(&value, static_cast<aclDataType>(type)), nullptr) << type;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclCreateScalar"), std::string::npos);
  }
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_EQ(aclDestroyScalar(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Arrays, BoolArrayAndSizes) {
  const bool values[] = {true, false, true};
  aclBoolArray *bools = aclCreateBoolArray(values, 3);
  ASSERT_NE(bools, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetBoolArraySize(bools, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyBoolArray(bools), ACL_SUCCESS);

  aclBoolArray *empty = aclCreateBoolArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(aclGetBoolArraySize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyBoolArray(empty), ACL_SUCCESS);
  EXPECT_EQ(aclCreateBoolArray(nullptr, 2), nullptr);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), ACL_ERROR_INVALID_PARAM);

  const int64_t ints[] = {4, 5, 6, 7, 8};
  aclIntArray *intArray = aclCreateIntArray(ints, 5);
  ASSERT_NE(intArray, nullptr);
  EXPECT_EQ(aclGetIntArraySize(intArray, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 5u);
  const float floats[] = {1.5f, 2.5f};
  aclFloatArray *floatArray = aclCreateFloatArray(floats, 2);
  ASSERT_NE(floatArray, nullptr);
  EXPECT_EQ(aclGetFloatArraySize(floatArray, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);

  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetIntArraySize(intArray, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(floatArray, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyIntArray(intArray), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(floatArray), ACL_SUCCESS);
}

void ExpectArray(int64_t *values, uint64_t count, const std::vector<int64_t> &expected) {
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(count, expected.size());
  for (uint64_t i = 0; i < count; ++i) EXPECT_EQ(values[i], expected[i]) << i;
  delete[] values;  // CANN's contract: allocated with new[]
}

TEST(TensorGetters, ReturnWhatTheTensorWasCreatedWith) {
  const std::vector<int64_t> view = {2, 3, 4, 5, 6};
  const std::vector<int64_t> strides = {1000, 1, 150, 30, 5};  // a permuted, strided view
  const std::vector<int64_t> storage = {4096};
  float storageData[1];
  aclTensor *tensor = aclCreateTensor(view.data(), view.size(), ACL_BF16, strides.data(), 7, ACL_FORMAT_NDHWC,
                                      storage.data(), storage.size(), storageData);
  ASSERT_NE(tensor, nullptr);
  int64_t *values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS);
  ExpectArray(values, count, view);
  ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS);
  ExpectArray(values, count, strides);
  ASSERT_EQ(aclGetStorageShape(tensor, &values, &count), ACLNN_SUCCESS);
  ExpectArray(values, count, storage);
  int64_t offset = 0;
  ASSERT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 7);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  ASSERT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NDHWC);
  aclDataType type = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(tensor, &type), ACLNN_SUCCESS);
  EXPECT_EQ(type, ACL_BF16);
  EXPECT_EQ(aclDestroyTensor(tensor), ACL_SUCCESS);
}

TEST(TensorGetters, ZeroDimTensorAndValuesOutsideTheEnumerations) {
  const int64_t storage[] = {1};
  aclTensor *tensor = aclCreateTensor(nullptr, 0, static_cast<aclDataType>(99), nullptr, 0,
                                      static_cast<aclFormat>(123), storage, 1, nullptr);
  ASSERT_NE(tensor, nullptr);
  int64_t *values = nullptr;
  uint64_t count = 5;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS);
  ExpectArray(values, count, {});
  ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS);
  ExpectArray(values, count, {});
  aclDataType type = ACL_FLOAT;
  ASSERT_EQ(aclGetDataType(tensor, &type), ACLNN_SUCCESS);
  EXPECT_EQ(type, ACL_DT_UNDEFINED);  // beyond the enumeration's range
  aclFormat format = ACL_FORMAT_ND;
  ASSERT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_UNDEFINED);
  EXPECT_EQ(aclDestroyTensor(tensor), ACL_SUCCESS);

  // Values within the range come back as given, enumerators or not (5 lies in a gap of aclDataType).
  aclTensor *gap = aclCreateTensor(nullptr, 0, static_cast<aclDataType>(5), nullptr, 0,
                                   static_cast<aclFormat>(40), storage, 1, nullptr);
  ASSERT_NE(gap, nullptr);
  ASSERT_EQ(aclGetDataType(gap, &type), ACLNN_SUCCESS);
  EXPECT_EQ(static_cast<int>(type), 5);
  ASSERT_EQ(aclGetFormat(gap, &format), ACLNN_SUCCESS);
  EXPECT_EQ(static_cast<int>(format), 40);
  EXPECT_EQ(aclDestroyTensor(gap), ACL_SUCCESS);
}

TEST(TensorGetters, NullArguments) {
  const int64_t dims[] = {2, 2};
  const int64_t strides[] = {2, 1};
  float data[4];
  aclTensor *tensor = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, data);
  ASSERT_NE(tensor, nullptr);
  int64_t *values = nullptr;
  uint64_t count = 0;
  int64_t offset = 0;
  aclFormat format = ACL_FORMAT_ND;
  aclDataType type = ACL_FLOAT;
  EXPECT_EQ(aclGetViewShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewStrides(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewStrides(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewStrides(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetStorageShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetStorageShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetStorageShape(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(nullptr, &offset), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(nullptr, &type), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(values, nullptr);  // nothing allocated by the failures
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclGetDataType"), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(tensor), ACL_SUCCESS);
}

}  // namespace
}  // namespace trilinear3d::test
