//===- Wrapper.h - what every Python launch wrapper shares -------*- C++ -*-===//
//
// The Triton and cuTile providers both emit a Python module whose wrapper
// checks the public ABI (seed 000 §4.3: dtype, rank, shape relations, aliasing
// of written views, scalar ranges) and evaluates the LaunchExpr grid on the
// host (seed 000 §3.1) before its one launch. The check functions and the host
// spelling of LaunchExprs live here once, so both wrappers reject exactly the
// same calls with the same messages.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_WRAPPER_H
#define TESSEL_TARGET_WRAPPER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace tessel::wrapper {

/// Whether region `r` holds a pgpu.contract.
bool contracts(mlir::Region &r);

/// Whether one branch of the `pgpu.if` `op` contracts and the other computes without any contract: the
/// element-wise branch construction keeps beside a tiled one for extents past their blocks (attention's
/// head size past BLOCK_D). It is a different algorithm, orders of magnitude slower on a GPU: tileiras
/// 13.4 compiles it pathologically slowly (session 11's cuTile matrix: 25 s to over 300 s beside the
/// tiled branch, about 4-31 s without it), and on the H200 a Triton tuning search that launched it at
/// B4 H32 S4096 D128 (BLOCK_D = 64) did not return in 560 s (session 12). When the `if` is a launch fact,
/// the cuTile provider compiles only the contracting branch and its wrapper refuses a launch that would
/// take the other (seed 000 §3.1: a launch fact is evaluated on the host; the provider states what it
/// does not express instead of compiling it); the Triton provider compiles both and names, for the
/// tuner, the bindings whose launch takes the element-wise branch (`<kernel>_ELEMENTWISE`).
bool splitsOffContractFreeBranch(mlir::Operation *op);

/// The torch dtype spelling of a view or workspace element type ("" when torch has none).
std::string torchType(mlir::Type t);

/// A Python float literal (nan and infinities spelled through float()).
std::string floatLiteral(double v);

/// A Python literal of an index constant for 32-bit index lanes (Triton's tl.int32, cuTile's ct.int32):
/// the i64 limits, which only stand for "no value" (a min / max reduction's identity over index values,
/// kir written with the i64 limits), are spelled as the int32 limits -- the identity of the lanes' type
/// (an INT64_MAX added to int32 lanes is rejected, or wraps to -1); every other value as it is.
std::string indexLaneLiteral(int64_t v);

/// The provider a wrapper launches, as its checks name it.
struct Flavor {
  /// "Triton" or "cuTile": the kernels that index with 32-bit offsets.
  llvm::StringRef provider;
  /// The environment variable that lets CPU tensors through (Triton's interpreter), or empty.
  llvm::StringRef interpretEnv;
  /// What runs CPU tensors when `interpretEnv` is set, as the error message names it.
  llvm::StringRef interpretWhat = "the CPU interpreter";
  /// Whether the kernels index with 32-bit offsets (the wrapper then bounds each view's span).
  bool offsets32 = true;
};

/// `_check_view(name, t, dtype, extents, sizes, device, writes=False)`: a torch.Tensor of this dtype
/// and rank, at most 2**31 - 1 elements of span, written views neither stride-0 nor self-overlapping,
/// extents equal to literals or to every other view naming the same symbol, one device, CUDA; a dense
/// (strided) layout without the negative or conjugate bit. With an interpreter (`interpretEnv`), also
/// `_check_data(*views)`, called before a launch: no view is a meta tensor.
void emitCheckView(llvm::raw_ostream &os, const Flavor &flavor);
/// The statement `_check_data(('a', a), ...)` over the views, or "" without views.
std::string checkData(llvm::ArrayRef<std::pair<std::string, bool>> views);
/// `_check_scalar(name, v, kind, bounds=None)`: an int (or float) inside its declared type's range.
void emitCheckScalar(llvm::raw_ostream &os);
/// `_span(t)`: the byte range a view's elements occupy relative to its data pointer; and
/// `_check_apart(*views)`: no written view shares memory with another view.
void emitCheckApart(llvm::raw_ostream &os);

/// The checked launch mode (`TESSEL_CHECKED=1` when the module is imported, or `_indices=True` on a
/// call): `_CHECKED`, and `_check_index(name, t, target, view, axis)`: every value of the index view
/// `t` lies in [0, view.shape[axis]), read with torch ops on its device; else an IndexError naming the
/// argument, the first offending position and value, and the valid range.
void emitCheckIndex(llvm::raw_ostream &os);
/// The `_check_index` calls of a kernel's `pgpu.indexes` argument facts (views by their ABI names).
llvm::SmallVector<std::string> indexChecks(mlir::FunctionOpInterface kernel);
/// The keyword parameter of a checked launch: `_indices=_CHECKED` (the mode at import by default).
inline constexpr llvm::StringLiteral kIndicesKeyword = "_indices=_CHECKED";

/// A generated launch function's parameters: views positionally, then scalars keyword-only.
std::string launchSignature(llvm::ArrayRef<std::string> positional, llvm::ArrayRef<std::string> keywords);
/// A generated launch function's ABI checks: `_extents, _device = {}, []`, every check line, then
/// (with two views or more) `_check_apart` over `views`, each (name, written), then, under
/// `_indices` (a parameter of the launch function: kIndicesKeyword), the checked mode's index checks.
void emitCallChecks(llvm::raw_ostream &os, llvm::ArrayRef<std::string> checks,
                    llvm::ArrayRef<std::pair<std::string, bool>> views,
                    llvm::ArrayRef<std::string> indexChecks = {});

/// The `_check_scalar` kind ("int" or "float") and range ("(lo, hi)", or "" when unbounded) of a
/// by-value ABI scalar of type `t`.
std::pair<std::string, std::string> scalarCheck(mlir::Type t);

/// The host (wrapper) spelling of the LaunchExpr `v` (seed 000 §3.1): ABI scalars and views by
/// `nameOf`, `pgpu.param` by its bound value, shape and stride metadata as `view.shape[a]` and
/// `view.stride(a)`. An operation outside the language is reported through `reject` (which emits
/// the error at the op and returns failure).
mlir::FailureOr<std::string>
hostLaunchExpr(mlir::Value v, const std::function<std::string(mlir::Value)> &nameOf,
               const std::function<int64_t(llvm::StringRef)> &paramOf,
               const std::function<mlir::LogicalResult(mlir::Operation *, llvm::StringRef)> &reject);
/// The same spelling with each `pgpu.param` spelled by `paramText` (e.g. a lookup in a Python dict of
/// a binding), and view metadata by `shapeText(view, axis)`. A value `known` names (a local the caller
/// assigned it to) is spelled by that name, not again from its operands.
mlir::FailureOr<std::string>
hostLaunchExprText(mlir::Value v, const std::function<std::string(mlir::Value)> &nameOf,
                   const std::function<std::string(llvm::StringRef)> &paramText,
                   const std::function<std::string(mlir::Value, int64_t)> &shapeText,
                   const std::function<mlir::LogicalResult(mlir::Operation *, llvm::StringRef)> &reject,
                   const std::function<std::optional<std::string>(mlir::Value)> &known = {});

/// The host spelling of `v` when it is a launch fact (seed 000 §3.1): an integer value computed only from
/// `entry`'s arguments (extents, strides, integer scalars), parameters and constants, with no region
/// between; nothing otherwise (also when hostLaunchExpr has no spelling for one of its ops). A
/// `pgpu.if` on such a condition is uniform over the launch: the wrapper evaluates it and the
/// providers compile only the branch taken (Triton's constexpr and cuTile's Constant guards).
/// With `readsFloat`, comparisons of float kernel scalars with float constants count too (no float
/// arithmetic: the host computes in double precision); `*readsFloat` then says whether the fact reads a
/// float scalar, which a wrapper that reuses launch plans across calls must key them on.
std::optional<std::string> launchFact(mlir::Value v, mlir::Block &entry,
                                      const std::function<std::string(mlir::Value)> &nameOf,
                                      const std::function<int64_t(llvm::StringRef)> &paramOf,
                                      bool *readsFloat = nullptr);

/// The kernel attribute pgpu-tile-column-reductions states ragged segments' tiles in: {along: the
/// parameter of lanes along a segment, across: of segments a program takes, pool: the view extent the
/// segments partition, count: the extent counting them}.
inline constexpr llvm::StringLiteral kSegmentsAttr = "pgpu.segments";

/// `<kernel>_PARAMS = {name: ([candidates], bound value)}`, `<kernel>_COVERS = {name: symbol}` and
/// `<kernel>_PASSES = {name: passes parameter}`: the declared search space with this binding's values,
/// the shape symbol each parameter's call default covers, and the parameters whose product with a
/// passes parameter covers it (seed 003: only declared parameters are searched; winners live outside
/// the IR).
/// Every provider's module states them, so the tuner and call defaults treat providers alike.
/// `segments` (the kernel's `pgpu.segments`, pgpu-tile-column-reductions: tiles of ragged segments
/// partitioning a view extent) adds `<kernel>_SEGMENTS = {key: name}`, where present.
void emitDeclaredParams(llvm::raw_ostream &os, llvm::StringRef kernel, mlir::ArrayAttr declared,
                        const std::function<int64_t(llvm::StringRef)> &boundValue,
                        mlir::DictionaryAttr segments = {});

/// The author's file:line behind a location (fused origins keep it inside): generated source
/// points back at the KIR origin of what follows.
std::optional<std::string> sourceLine(mlir::Location loc);

} // namespace tessel::wrapper

#endif // TESSEL_TARGET_WRAPPER_H
