//===- TypesTest.cpp - kir types and attributes through the C++ API --------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace tessel::kir;

namespace {
struct KIRTypes : ::testing::Test {
  KIRTypes() { context.loadDialect<KIRDialect>(); }
  MLIRContext context;
};

TEST_F(KIRTypes, ViewKeepsNamedAndStaticExtents) {
  auto view = dyn_cast_or_null<ViewType>(parseType("!kir.view<f16, [M, 64], inout>", &context));
  ASSERT_TRUE(view);
  EXPECT_EQ(view.getRank(), 2u);
  EXPECT_EQ(view.getExtentName(0), "M");
  EXPECT_FALSE(view.getStaticExtent(0));
  EXPECT_EQ(view.getStaticExtent(1), 64);
  EXPECT_TRUE(view.isReadable());
  EXPECT_TRUE(view.isWritable());
  EXPECT_TRUE(view.getElementType().isF16());
}

TEST_F(KIRTypes, OutViewIsNotReadable) {
  auto view = cast<ViewType>(parseType("!kir.view<f32, [N], out>", &context));
  EXPECT_FALSE(view.isReadable());
  EXPECT_TRUE(view.isWritable());
}

TEST_F(KIRTypes, RecordFieldLookup) {
  auto record = cast<RecordType>(parseType("!kir.record<max: f32, den: f32, acc: tensor<64xf32>>", &context));
  EXPECT_EQ(record.getFieldIndex("den"), 1u);
  EXPECT_EQ(record.getFieldIndex("acc"), 2u);
  EXPECT_FALSE(record.getFieldIndex("missing"));
}

TEST_F(KIRTypes, CompileOptionsDefaults) {
  auto options = cast<CompileOptionsAttr>(parseAttribute("#kir.compile_options<>", &context));
  EXPECT_EQ(options.getNumerics(), Numerics::Source);
  EXPECT_TRUE(options.getOnlineReduction());
  EXPECT_FALSE(options.getOptimizationRemarks());
  auto relaxed = cast<CompileOptionsAttr>(
      parseAttribute("#kir.compile_options<numerics = relaxed_normalization, online_reduction = false>", &context));
  EXPECT_EQ(relaxed.getNumerics(), Numerics::RelaxedNormalization);
  EXPECT_FALSE(relaxed.getOnlineReduction());
}

TEST_F(KIRTypes, I1LikeKeepsShape) {
  Builder b(&context);
  auto tensor = RankedTensorType::get({4, ShapedType::kDynamic}, b.getF32Type());
  auto i1 = cast<RankedTensorType>(getI1Like(tensor));
  EXPECT_EQ(i1.getShape(), tensor.getShape());
  EXPECT_TRUE(i1.getElementType().isInteger(1));
  EXPECT_TRUE(getI1Like(b.getF32Type()).isInteger(1));
}
} // namespace
