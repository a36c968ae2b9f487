// The op definition registry (the seed's *_def.cpp): inputs, outputs, attrs with their defaults,
// dtypes and formats of UpsampleTrilinear3dGrad and UpsampleTrilinear3d, and FindOpDef.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_host/op_defs.h"

namespace trilinear3d::op_host {
namespace {

const AttrDef *FindAttr(const OpDef &def, const std::string &name) {
  for (const AttrDef &attr : def.attrs) {
    if (attr.name == name) return &attr;
  }
  return nullptr;
}

std::vector<std::string> AttrNames(const OpDef &def) {
  std::vector<std::string> names;
  for (const AttrDef &attr : def.attrs) names.push_back(attr.name);
  return names;
}

void ExpectAttr(const OpDef &def, const std::string &name, AttrKind kind, bool required,
                const std::string &defaultValue) {
  SCOPED_TRACE(def.type + "." + name);
  const AttrDef *attr = FindAttr(def, name);
  ASSERT_NE(attr, nullptr);
  EXPECT_EQ(attr->kind, kind);
  EXPECT_EQ(attr->required, required);
  EXPECT_EQ(attr->defaultValue, defaultValue);
}

// The optional attrs both ops have (align_corners, scale_d/h/w): their kinds and defaults, which
// must also parse as the values CANN documents (false, 0.0).
void ExpectOptionalAttrs(const OpDef &def) {
  ExpectAttr(def, "align_corners", AttrKind::kBool, false, "false");
  ExpectAttr(def, "scale_d", AttrKind::kFloat, false, "0.0");
  ExpectAttr(def, "scale_h", AttrKind::kFloat, false, "0.0");
  ExpectAttr(def, "scale_w", AttrKind::kFloat, false, "0.0");
  const AttrDef *alignCorners = FindAttr(def, "align_corners");
  ASSERT_NE(alignCorners, nullptr);
  EXPECT_EQ(alignCorners->defaultValue, "false");
  for (const char *name : {"scale_d", "scale_h", "scale_w"}) {
    const AttrDef *attr = FindAttr(def, name);
    ASSERT_NE(attr, nullptr) << name;
    EXPECT_EQ(std::stod(attr->defaultValue), 0.0) << name;
  }
}

// The op's type, inputs and outputs.
void ExpectSignature(const OpDef &def, const std::string &type, const std::vector<std::string> &inputs,
                     const std::vector<std::string> &outputs) {
  EXPECT_EQ(def.type, type);
  EXPECT_EQ(def.inputs, inputs);
  EXPECT_EQ(def.outputs, outputs);
}

TEST(OpDef, GradInputsOutputsAndType) {
  ExpectSignature(UpsampleTrilinear3dGradDef(), "UpsampleTrilinear3dGrad", {"grad_output"}, {"grad_input"});
}

TEST(OpDef, GradAttrsInOrderWithDefaults) {
  const OpDef &def = UpsampleTrilinear3dGradDef();
  EXPECT_EQ(AttrNames(def), std::vector<std::string>({"output_size", "input_size", "align_corners", "scale_d",
                                                      "scale_h", "scale_w"}));
  ExpectAttr(def, "output_size", AttrKind::kListInt, true, "");
  ExpectAttr(def, "input_size", AttrKind::kListInt, true, "");
  ExpectOptionalAttrs(def);
}

TEST(OpDef, ForwardInputsOutputsAndType) {
  ExpectSignature(UpsampleTrilinear3dDef(), "UpsampleTrilinear3d", {"x"}, {"y"});
}

TEST(OpDef, ForwardAttrsInOrderWithDefaults) {
  const OpDef &def = UpsampleTrilinear3dDef();
  EXPECT_EQ(AttrNames(def),
            std::vector<std::string>({"output_size", "align_corners", "scale_d", "scale_h", "scale_w"}));
  EXPECT_EQ(FindAttr(def, "input_size"), nullptr);  // the forward takes its input size from x
  ExpectAttr(def, "output_size", AttrKind::kListInt, true, "");
  ExpectOptionalAttrs(def);
}

TEST(OpDef, RequiredAttrsHaveNoDefault) {
  for (const OpDef *def : {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef()}) {
    for (const AttrDef &attr : def->attrs) {
      if (attr.required) {
        EXPECT_TRUE(attr.defaultValue.empty()) << def->type << "." << attr.name;
      }
    }
  }
}

TEST(OpDef, DataTypesAreTheFourSupported) {
  for (const OpDef *def : {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef()}) {
    SCOPED_TRACE(def->type);
    EXPECT_EQ(def->dataTypes.size(), 4u);
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      EXPECT_TRUE(SupportsDataType(*def, dt)) << dt;
    }
    for (aclDataType dt :
         {ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64, ACL_BOOL,
          ACL_STRING, ACL_COMPLEX64, ACL_COMPLEX128, ACL_DT_UNDEFINED}) {
      EXPECT_FALSE(SupportsDataType(*def, dt)) << dt;
    }
  }
}

TEST(OpDef, FormatsAreNdNcdhwNdhwc) {
  for (const OpDef *def : {&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dDef()}) {
    SCOPED_TRACE(def->type);
    EXPECT_EQ(def->formats.size(), 3u);
    for (aclFormat f : {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
      EXPECT_TRUE(SupportsFormat(*def, f)) << f;
    }
    for (aclFormat f :
         {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_UNDEFINED}) {
      EXPECT_FALSE(SupportsFormat(*def, f)) << f;
    }
  }
}

TEST(OpDef, FindOpDefByType) {
  EXPECT_EQ(FindOpDef("UpsampleTrilinear3dGrad"), &UpsampleTrilinear3dGradDef());
  EXPECT_EQ(FindOpDef("UpsampleTrilinear3d"), &UpsampleTrilinear3dDef());
  EXPECT_EQ(FindOpDef(""), nullptr);
  EXPECT_EQ(FindOpDef("UpsampleTrilinear3dBackward"), nullptr);  // the aclnn name, not the op type
  EXPECT_EQ(FindOpDef("upsampletrilinear3dgrad"), nullptr);      // case matters
  EXPECT_EQ(FindOpDef("UpsampleTrilinear3dGrad "), nullptr);
}

TEST(OpDef, DefinitionsAreStableSingletons) {
  EXPECT_EQ(&UpsampleTrilinear3dGradDef(), &UpsampleTrilinear3dGradDef());
  EXPECT_EQ(&UpsampleTrilinear3dDef(), &UpsampleTrilinear3dDef());
  EXPECT_NE(&UpsampleTrilinear3dDef(), &UpsampleTrilinear3dGradDef());
}

}  // namespace
}  // namespace trilinear3d::op_host
