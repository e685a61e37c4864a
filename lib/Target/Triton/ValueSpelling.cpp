//===- ValueSpelling.cpp - the Triton spelling of values ------------------===//
//
// The Triton serializer's spelling of types, values (names and literals, on
// the device and in the host wrapper) and of the addresses accesses read and
// write: a view's elements, invocation workspace, a box's tensor descriptor.
//
//===----------------------------------------------------------------------===//

#include "SerializerImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::triton::spelling;
namespace gluon = tessel::triton::gluon;

namespace tessel::triton::spelling {
std::string tritonType(Type t) {
  if (t.isF16()) return "tl.float16";
  if (t.isBF16()) return "tl.bfloat16";
  if (t.isF32()) return "tl.float32";
  if (t.isF64()) return "tl.float64";
  if (isa<Float8E4M3FNType>(t)) return "tl.float8e4nv";
  if (isa<Float8E5M2Type>(t)) return "tl.float8e5";
  if (t.isInteger(1)) return "tl.int1";
  if (t.isIndex()) return "tl.int32";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "tl.uint" : "tl.int") + std::to_string(i.getWidth());
  return "";
}
} // namespace tessel::triton::spelling

std::string Serializer::expr(Value v) {
  if (auto it = overrides.find(v); it != overrides.end())
    return it->second;
  if (mode == Mode::Loader && !loaderHas(v) && !gluonWhy)
    gluonWhy = {v.getDefiningOp() ? v.getDefiningOp() : kernel.getOperation(),
                "the loader partition would need a value its slice does not compute"};
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
      if (c.getType().isIndex())
        return wrapper::indexLaneLiteral(i.getInt());
      return llvm::formatv("tl.full([], {0}, {1})", i.getType().isInteger(1) ? int64_t(i.getValue().getZExtValue())
                                                                           : i.getInt(),
                           tritonType(c.getType()))
          .str();
    }
    if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
      if (triton::isFloat8(c.getType())) // Triton makes no FP8 constant of its own: an exact narrowing
        return triton::float8Narrowing(c.getType(), "tl.full([], " + floatLiteral(f.getValueAsDouble()) +
                                                        ", tl.float32)");
      // Triton 3.6's interpreter makes no nonzero bf16 scalar constant (tl.full calls the builder's
      // get_bf16, which its InterpreterBuilder lacks; a zero takes get_null_value, which it has; found
      // by the DSL fuzzer): an f32 constant narrowed, exact (the value is a bf16 value), the same value
      // on a GPU.
      if (c.getType().isBF16() && !f.getValue().isZero())
        return "tl.cast(tl.full([], " + floatLiteral(f.getValueAsDouble()) + ", tl.float32), tl.bfloat16)";
      return llvm::formatv("tl.full([], {0}, {1})", floatLiteral(f.getValueAsDouble()), tritonType(c.getType())).str();
    }
  }
  return name(v);
}

FailureOr<std::string> Serializer::hostExpr(Value v) {
  return wrapper::hostLaunchExpr(
      v, [&](Value x) { return name(x); }, [&](StringRef n) { return param(n); },
      [&](Operation *op, StringRef why) { return unsupported(op, why); });
}

std::optional<std::string> Serializer::launchFact(Value v, bool *readsFloat) {
  return wrapper::launchFact(
      v, kernel.getBody().front(), [&](Value x) { return name(x); }, [&](StringRef n) { return param(n); },
      readsFloat);
}

FailureOr<std::string> Serializer::address(Operation *op, Value view, ValueRange coords) {
  std::string base = name(view), text = base;
  for (auto [axis, c] : llvm::enumerate(coords)) {
    if (!pgpu::elementTypeOf(c.getType()).isIndex())
      return unsupported(op, "coordinates must be index values");
    text += llvm::formatv(" + ({0}) * {1}_stride{2}", expr(c), base, axis).str();
  }
  return text;
}

FailureOr<std::string> Serializer::workspaceAddress(Operation *op, Value buffer, ValueRange coords) {
  // Workspace is row-major and contiguous: offset = sum_i c_i * prod_{j > i} extent_j.
  auto extents = workspaceExtents.find(buffer);
  if (extents == workspaceExtents.end())
    return unsupported(op, "only workspace buffers (kernel arguments) are spelled");
  std::string offset;
  for (auto [i, c] : llvm::enumerate(coords)) {
    std::string term = "(" + expr(c) + ")";
    for (const std::string &e : ArrayRef<std::string>(extents->second).drop_front(i + 1))
      term += " * (" + e + ")";
    offset += (i ? " + " : "") + term;
  }
  return name(buffer) + " + " + (offset.empty() ? "0" : offset);
}

std::optional<std::string> Serializer::descriptorAccess(Operation *op) {
  if (!kernel.getParam(triton::kTmaParam) || param(triton::kTmaParam) != 1)
    return std::nullopt;
  std::optional<triton::TileAccess> tile = triton::matchTileAccess(op);
  if (!tile || triton::keepsPointerSpelling(op))
    return std::nullopt;
  // A box store stages its tile in shared memory for the copy engine; a binding whose program would
  // not fit the target's shared memory with its stores staged spells them with pointers (Resources.h:
  // storesStagedAt), so a wide tile keeps its pipeline depth: split-K's f32 128x256 tile at 4 stages
  // needs 196640 B so, 327712 B staged (sm_90, Triton 3.6; session 15).
  if (isa<pgpu::StoreOp>(op)) {
    llvm::StringMap<int64_t> binding;
    ArrayAttr declared = *kernel.getParams();
    for (Attribute a : declared)
      binding[cast<pgpu::ParamAttr>(a).getName().getValue()] = param(cast<pgpu::ParamAttr>(a).getName().getValue());
    if (!staging)
      staging = triton::estimateResources(kernel, binding);
    if (!staging->storesStagedAt(binding)) {
      if (!dryRun && pgpu::remarksEnabled(op) && remarked.insert(op->getLoc().getAsOpaquePointer()).second)
        emitRemark(op->getLoc()) << "triton: the tile store keeps the pointer spelling: staged for TMA the program "
                                    "would need "
                                 << staging->sharedAt(binding) << " bytes of shared memory (the target has "
                                 << staging->sharedLimit << "), " << staging->sharedNeededAt(binding) << " without";
      return std::nullopt;
    }
  }
  unsigned bytes = cast<pgpu::ViewType>(tile->view.getType()).getElementType().getIntOrFloatBitWidth() / 8;
  Value fragment = isa<pgpu::LoadOp>(op) ? op->getResult(0) : cast<pgpu::StoreOp>(op).getValue();
  SmallVector<int64_t> shape = shapeOf(fragment.getType());
  SmallVector<unsigned, 2> walked = tile->walked();
  int64_t block0 = shape[tile->dimOf[walked[0]]], block1 = shape[tile->dimOf[walked[1]]];
  // A TMA box: at most 256 per side, the contiguous side at least 16 bytes.
  if (block0 > 256 || block1 > 256 || block1 * bytes < 16)
    return std::nullopt;
  unsigned rank = tile->dimOf.size();
  SmallVector<std::string> extents, strides, box, at;
  std::string v = name(tile->view);
  for (unsigned axis = 0; axis < rank; ++axis) {
    auto extent = extentSpelling.find({tile->view, axis});
    if (extent == extentSpelling.end())
      return std::nullopt;
    extents.push_back(extent->second);
    strides.push_back(v + "_stride" + std::to_string(axis));
    unsigned dim = tile->dimOf[axis];
    box.push_back(dim == triton::TileAccess::kFixed ? "1" : std::to_string(shape[dim]));
    Value offset = tile->offsets[axis];
    at.push_back(offset ? expr(offset) + " + " + expr(tile->starts[axis]) : expr(tile->starts[axis]));
  }
  std::string boxShape = "[" + llvm::join(box, ", ") + "]";
  std::string &desc = descriptors[v + boxShape];
  if (desc.empty()) {
    desc = "_desc" + std::to_string(descriptors.size() - 1);
    // What the host descriptor describes, for the reader of the source: the view's shape and strides.
    descriptorText += llvm::formatv("    # {0}: {1}'s {2} boxes of shape [{3}], strides [{4}] (made on the host)\n", desc, v,
                                    boxShape, llvm::join(extents, ", "), llvm::join(strides, ", "))
                          .str();
    hostDescriptors.push_back({v, boxShape});
    if (!llvm::is_contained(describedViews, tile->view))
      describedViews.push_back(tile->view);
  }
  // The box in view-axis order; a fragment that walks the axes the other way round is its transpose.
  // A box with fixed axes is the fragment's shape with unit axes inserted (a reshape either way).
  bool transposed = tile->dimOf[walked[0]] == 1;
  std::string planeShape = "[" + std::to_string(block0) + ", " + std::to_string(block1) + "]";
  bool fixed = rank > 2;
  std::string where = "[" + llvm::join(at, ", ") + "]";
  if (isa<pgpu::LoadOp>(op)) {
    std::string load = desc + ".load(" + where + ")";
    if (fixed)
      load = "tl.reshape(" + load + ", " + planeShape + ")";
    return transposed ? "tl.permute(" + load + ", (1, 0))" : load;
  }
  std::string value = expr(fragment);
  if (transposed)
    value = "tl.permute(" + value + ", (1, 0))";
  if (fixed)
    value = "tl.reshape(" + value + ", " + boxShape + ")";
  return desc + ".store(" + where + ", " + value + ")";
}
