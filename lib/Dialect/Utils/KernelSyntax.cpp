//===- KernelSyntax.cpp - kernel signatures with ABI names -----------------===//

#include "tessel/Dialect/Utils/KernelSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tessel {

ParseResult parseKernelSignature(OpAsmParser &parser, OperationState &result, StringAttr functionTypeName,
                                 StringAttr argAttrsName) {
  StringAttr name;
  if (parser.parseSymbolName(name, SymbolTable::getSymbolAttrName(), result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(parser, /*allowVariadic=*/false, args,
                                                                   isVariadic, resultTypes, resultAttrs))
    return failure();
  Builder &b = parser.getBuilder();
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argAttrs;
  for (OpAsmParser::Argument &arg : args) {
    argTypes.push_back(arg.type);
    NamedAttrList attrs(arg.attrs ? arg.attrs : b.getDictionaryAttr({}));
    if (!attrs.get(kArgNameAttr))
      attrs.set(kArgNameAttr, b.getStringAttr(arg.ssaName.name.drop_front()));
    argAttrs.push_back(attrs.getDictionary(b.getContext()));
  }
  result.addAttribute(functionTypeName, TypeAttr::get(b.getFunctionType(argTypes, resultTypes)));
  result.addAttribute(argAttrsName, b.getArrayAttr(argAttrs));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), args);
}

void printKernelSignature(OpAsmPrinter &p, FunctionOpInterface op, ArrayRef<StringRef> elidedAttrs) {
  p << " ";
  p.printSymbolName(op.getName());
  p << "(";
  Block &entry = op.getFunctionBody().front();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    if (i)
      p << ", ";
    SmallVector<NamedAttribute> attrs;
    if (DictionaryAttr dict = op.getArgAttrDict(i))
      for (NamedAttribute attr : dict)
        if (attr.getName() != kArgNameAttr)
          attrs.push_back(attr);
    p.printRegionArgument(arg, attrs);
  }
  p << ")";
  if (!op.getResultTypes().empty()) {
    p << " -> ";
    llvm::interleaveComma(op.getResultTypes(), p);
  }
  p.printOptionalAttrDictWithKeyword(op->getAttrs(), elidedAttrs);
  p << " ";
  p.printRegion(op.getFunctionBody(), /*printEntryBlockArgs=*/false);
}

void setKernelArgumentNames(FunctionOpInterface op, Region &region, OpAsmSetValueNameFn setNameFn) {
  if (&region != &op.getFunctionBody())
    return;
  for (auto [i, arg] : llvm::enumerate(region.front().getArguments()))
    if (auto name = op.getArgAttrOfType<StringAttr>(i, kArgNameAttr))
      setNameFn(arg, name.getValue());
}

LogicalResult verifyKernelArgumentNames(FunctionOpInterface op) {
  llvm::StringSet<> names;
  for (unsigned i = 0; i < op.getNumArguments(); ++i) {
    auto name = op.getArgAttrOfType<StringAttr>(i, kArgNameAttr);
    if (!name)
      continue;
    if (!names.insert(name.getValue()).second)
      return op->emitOpError() << "argument #" << i << " repeats the ABI name '" << name.getValue() << "'";
  }
  return success();
}

} // namespace tessel
