//===- FlattenRecords.cpp - record summaries folded as their fields -------===//
//
// A kir.region_fold whose summary is a record and the same fold written with
// one component per field are one algorithm; construction should see one
// canonical form (issue 41: canonical forms, not spellings). This pass
// rewrites every record component of a region fold into its fields, in
// declaration order, so construction blocks the fold as it blocks a tuple
// summary (seed 002 §3.4 region-fold realization) instead of folding unit
// segments element by element. It runs before kir-annotate-origins: KIR is
// immutable once origins are assigned (seed 002 §2.1).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRFLATTENRECORDS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// Whether `type` is, or holds somewhere inside a tuple or record, a record.
bool holdsRecord(Type type) {
  if (isa<RecordType>(type))
    return true;
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::any_of(tuple.getTypes(), holdsRecord);
  return false;
}

/// Why the record components of `schema` cannot be flattened soundly, or an
/// empty string when they can (one level of plain fields only).
std::string whyNotFlattenable(TypeRange schema) {
  for (auto [i, type] : llvm::enumerate(schema)) {
    if (isa<TupleType>(type) && holdsRecord(type))
      return "component " + std::to_string(i) + " is a tuple holding a record";
    auto record = dyn_cast<RecordType>(type);
    if (!record)
      continue;
    if (record.getTypes().empty())
      return "component " + std::to_string(i) + " is a record with no fields";
    for (auto [name, field] : llvm::zip(record.getNames(), record.getTypes()))
      if (holdsRecord(field) || isa<TupleType>(field))
        return "field '" + name.str() + "' of component " + std::to_string(i) +
               " is itself a record or tuple";
  }
  return "";
}

/// The schema with every record component replaced by its field types.
SmallVector<Type> flatTypes(TypeRange schema) {
  SmallVector<Type> flat;
  for (Type type : schema) {
    if (auto record = dyn_cast<RecordType>(type))
      llvm::append_range(flat, record.getTypes());
    else
      flat.push_back(type);
  }
  return flat;
}

/// The fields of record value `v`: the operands of its defining kir.record,
/// else one kir.record_get per field built at `builder`'s insertion point.
SmallVector<Value> fieldsOf(OpBuilder &builder, Location loc, Value v) {
  auto type = cast<RecordType>(v.getType());
  if (auto record = v.getDefiningOp<RecordOp>())
    return llvm::to_vector(record.getFields());
  SmallVector<Value> fields;
  for (auto [name, field] : llvm::zip(type.getNames(), type.getTypes()))
    fields.push_back(RecordGetOp::create(builder, loc, field, v, name));
  return fields;
}

/// `values` with every record replaced by its fields.
SmallVector<Value> flatValues(OpBuilder &builder, Location loc, ValueRange values) {
  SmallVector<Value> flat;
  for (Value v : values) {
    if (isa<RecordType>(v.getType()))
      llvm::append_range(flat, fieldsOf(builder, loc, v));
    else
      flat.push_back(v);
  }
  return flat;
}

/// Erases the defining kir.records of `values` that nothing uses any more
/// (each once: a record may be listed twice).
void eraseDeadRecords(ValueRange values) {
  llvm::SetVector<Operation *> records;
  for (Value v : values)
    if (auto record = v.getDefiningOp<RecordOp>())
      records.insert(record);
  for (Operation *record : records)
    if (record->use_empty())
      record->erase();
}

/// Replaces the record `v` by its `fields`: each kir.record_get of `v` reads
/// its field directly; any other use gets a kir.record rebuilt at `builder`'s
/// insertion point (created only when needed).
void replaceRecord(OpBuilder &builder, Location loc, Value v, ValueRange fields) {
  auto type = cast<RecordType>(v.getType());
  for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
    auto get = dyn_cast<RecordGetOp>(user);
    if (!get)
      continue;
    get.getResult().replaceAllUsesWith(fields[*type.getFieldIndex(get.getField())]);
    get->erase();
  }
  if (!v.use_empty())
    v.replaceAllUsesWith(RecordOp::create(builder, loc, type, fields));
}

/// Flattens the yielded values of `block`'s terminator.
void flattenYield(Block &block) {
  Operation *yield = block.getTerminator();
  SmallVector<Value> old(yield->getOperands());
  OpBuilder builder(yield);
  yield->setOperands(flatValues(builder, yield->getLoc(), old));
  eraseDeadRecords(old);
}

/// Replaces every argument of `block` by one argument per field (records) or
/// one of its own type, in order.
void flattenArguments(Block &block, Location loc) {
  unsigned count = block.getNumArguments();
  OpBuilder builder = OpBuilder::atBlockBegin(&block);
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument arg = block.getArgument(i);
    auto record = dyn_cast<RecordType>(arg.getType());
    if (!record) {
      arg.replaceAllUsesWith(block.addArgument(arg.getType(), arg.getLoc()));
      continue;
    }
    SmallVector<Value> fields;
    for (Type field : record.getTypes())
      fields.push_back(block.addArgument(field, arg.getLoc()));
    replaceRecord(builder, loc, arg, fields);
  }
  block.eraseArguments(0, count);
}

/// The record components of `schema`, spelled for a remark.
std::string describeRecords(TypeRange schema) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(llvm::make_filter_range(llvm::enumerate(schema),
                                                [](auto it) { return isa<RecordType>(it.value()); }),
                        os, [&](auto it) { os << "component " << it.index() << " " << it.value(); });
  return text;
}

/// Rewrites `op` into a fold over the records' fields; users of a record
/// result read the new field results.
void flattenFold(RegionFoldOp op) {
  Location loc = op.getLoc();
  OpBuilder builder(op);
  SmallVector<Value> identities(op.getIdentities());
  auto fold = RegionFoldOp::create(builder, loc, flatTypes(op.getResults().getTypes()), op.getSources(),
                                   op.getAxisAttr(), flatValues(builder, loc, identities), op.getCaptures());
  fold->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  fold.getSummarize().takeBody(op.getSummarize());
  fold.getCombine().takeBody(op.getCombine());
  flattenYield(fold.getSummarize().front());
  flattenArguments(fold.getCombine().front(), loc);
  flattenYield(fold.getCombine().front());

  builder.setInsertionPointAfter(fold);
  unsigned next = 0;
  for (Value result : op.getResults()) {
    auto record = dyn_cast<RecordType>(result.getType());
    unsigned width = record ? record.getTypes().size() : 1;
    ValueRange fields = fold.getResults().slice(next, width);
    next += width;
    if (record)
      replaceRecord(builder, loc, result, fields);
    else
      result.replaceAllUsesWith(fields.front());
  }
  op->erase();
  eraseDeadRecords(identities);
}

struct FlattenRecords : public tessel::kir::impl::KIRFlattenRecordsBase<FlattenRecords> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    // Innermost first (post-order): an inner fold is rewritten before the
    // outer one moves its regions.
    SmallVector<RegionFoldOp> folds;
    getOperation().walk<WalkOrder::PostOrder>([&](RegionFoldOp op) { folds.push_back(op); });
    for (RegionFoldOp op : folds) {
      TypeRange schema = op.getResults().getTypes();
      if (!llvm::any_of(schema, holdsRecord))
        continue;
      if (std::string why = whyNotFlattenable(schema); !why.empty()) {
        if (remarks)
          emitRemark(op.getLoc()) << "kir-flatten-records: the region fold keeps its record summary: " << why;
        continue;
      }
      if (remarks)
        emitRemark(op.getLoc()) << "kir-flatten-records: the region fold's " << describeRecords(schema)
                                << " folded as its fields, one component each (as a tuple summary)";
      flattenFold(op);
    }
    if (remarks)
      getOperation().walk([](RegionScanOp op) {
        if (llvm::any_of(op->getOperandTypes(), holdsRecord))
          emitRemark(op.getLoc()) << "kir-flatten-records: region scans keep their record transitions and "
                                     "states (not flattened yet)";
      });
  }
};

} // namespace
