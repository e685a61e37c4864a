//===- HostData.cpp - host arrays for `tessel run` and tests ---------------===//

#include "tessel/Interp/HostData.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace tessel::interp;

/// Visits every logical element of `array` in row-major order.
template <typename Fn>
static void forEach(const HostArray &array, Fn fn) {
  SmallVector<int64_t> index(array.shape.size(), 0);
  int64_t n = array.numElements();
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear;
    for (int64_t i = int64_t(array.shape.size()) - 1; i >= 0; --i) {
      index[i] = rest % array.shape[i];
      rest /= array.shape[i];
    }
    fn(array.address(index));
  }
}

void tessel::interp::fillRandom(HostArray &array, std::mt19937_64 &rng,
                                std::optional<std::pair<int64_t, int64_t>> range) {
  bool isFloat = isFloatType(array.elementType);
  forEach(array, [&](int64_t addr) {
    Elem &e = array.storage[addr];
    if (isFloat) {
      double magnitude = 0.25 + 0.75 * double(rng() >> 11) * 0x1.0p-53;
      e.f = roundToFloat((rng() & 1) ? -magnitude : magnitude, array.elementType);
    } else if (array.elementType.isInteger(1)) {
      e.i = int64_t(rng() & 1);
    } else if (range) {
      uint64_t span = uint64_t(std::max<int64_t>(range->second - range->first, 1));
      e.i = wrapToInteger(range->first + int64_t(rng() % span), array.elementType);
    } else {
      int64_t magnitude = 1 + int64_t(rng() % 7);
      bool isUnsigned = array.elementType.isUnsignedInteger();
      e.i = wrapToInteger((!isUnsigned && (rng() & 1)) ? -magnitude : magnitude, array.elementType);
    }
  });
}

void tessel::interp::fillPoison(HostArray &array) {
  bool isFloat = isFloatType(array.elementType);
  for (Elem &e : array.storage) {
    if (isFloat)
      e.f = std::nan("");
    else
      e.i = wrapToInteger(0x5eadbeef, array.elementType);
  }
}

namespace {
struct NpyFormat {
  const char *descr;
  unsigned bytes;
};

NpyFormat npyFormat(Type type) {
  if (isa<FloatType>(type)) {
    if (type.isF64())
      return {"<f8", 8};
    return type.isF16() ? NpyFormat{"<f2", 2} : NpyFormat{"<f4", 4}; // bf16 and f8 widen to f32
  }
  if (type.isIndex())
    return {"<i8", 8};
  if (type.isInteger(1))
    return {"|b1", 1};
  bool isUnsigned = type.isUnsignedInteger();
  switch (type.getIntOrFloatBitWidth()) {
  case 8: return {isUnsigned ? "|u1" : "|i1", 1};
  case 16: return {isUnsigned ? "<u2" : "<i2", 2};
  case 32: return {isUnsigned ? "<u4" : "<i4", 4};
  default: return {isUnsigned ? "<u8" : "<i8", 8};
  }
}
} // namespace

bool tessel::interp::writeNpy(const HostArray &array, const std::string &path, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  NpyFormat fmt = npyFormat(array.elementType);
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ",";
  if (array.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + fmt.descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  os << "\x93NUMPY" << char(1) << char(0);
  uint16_t len = uint16_t(header.size());
  os.write(reinterpret_cast<const char *>(&len), 2);
  os << header;
  bool isFloat = isFloatType(array.elementType);
  forEach(array, [&](int64_t addr) {
    const Elem &e = array.storage[addr];
    char bytes[8] = {0};
    if (isFloat && fmt.bytes == 2) {
      uint16_t bits = toHalfBits(e.f);
      std::memcpy(bytes, &bits, 2);
    } else if (isFloat && fmt.bytes == 4) {
      float f = float(e.f);
      std::memcpy(bytes, &f, 4);
    } else if (isFloat) {
      std::memcpy(bytes, &e.f, 8);
    } else {
      std::memcpy(bytes, &e.i, fmt.bytes); // little-endian truncation
    }
    os.write(bytes, fmt.bytes);
  });
  return true;
}

/// The value of `key` in a .npy header dictionary (`'key': value`), up to the
/// next top-level comma or the closing brace.
static std::optional<std::string> headerField(llvm::StringRef header, llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  int depth = 0;
  size_t end = 0;
  for (; end < rest.size(); ++end) {
    char c = rest[end];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  return rest.take_front(end).trim().str();
}

std::optional<HostArray> tessel::interp::readNpy(const std::string &path, Type elementType, std::string &error) {
  auto fail = [&](const llvm::Twine &why) -> std::optional<HostArray> {
    error = (path + ": " + why).str();
    return std::nullopt;
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return fail("cannot read: " + file.getError().message());
  llvm::StringRef data = (*file)->getBuffer();
  if (data.size() < 10 || !data.starts_with("\x93NUMPY"))
    return fail("not a .npy file (no \\x93NUMPY magic)");
  unsigned major = uint8_t(data[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(data[8]) | (size_t(uint8_t(data[9])) << 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && data.size() >= 12) {
    headerLength = 0;
    for (int k = 0; k < 4; ++k)
      headerLength |= size_t(uint8_t(data[8 + k])) << (8 * k);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + llvm::Twine(major));
  }
  if (headerStart + headerLength > data.size())
    return fail("truncated header");
  llvm::StringRef header = data.substr(headerStart, headerLength);
  std::optional<std::string> descrText = headerField(header, "descr");
  std::optional<std::string> orderText = headerField(header, "fortran_order");
  std::optional<std::string> shapeText = headerField(header, "shape");
  if (!descrText || !orderText || !shapeText)
    return fail("the header lacks descr, fortran_order or shape");
  llvm::StringRef descr = llvm::StringRef(*descrText).trim("'\"");
  bool fortran = *orderText == "True";
  if (!fortran && *orderText != "False")
    return fail("fortran_order must be True or False, got " + *orderText);
  // The shape: a tuple of non-negative integers.
  SmallVector<int64_t> shape;
  llvm::StringRef dims = llvm::StringRef(*shapeText).trim();
  if (!dims.consume_front("(") || !dims.consume_back(")"))
    return fail("shape must be a tuple, got " + *shapeText);
  SmallVector<llvm::StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  int64_t count = 1;
  for (llvm::StringRef part : parts) {
    int64_t d;
    if (part.trim().getAsInteger(10, d) || d < 0)
      return fail("bad extent '" + part.trim() + "' in shape " + *shapeText);
    shape.push_back(d);
    if (d && count > HostArray::kMaxElements / d) // the interpreters' one element cap (Interpreter.h)
      return fail("has more than 2^28 (" + llvm::Twine(HostArray::kMaxElements) +
                  ") elements, the most the interpreters hold");
    count *= d;
  }
  // The element format: byte order, kind, size.
  if (descr.size() < 3)
    return fail("unsupported dtype '" + descr + "'");
  char byteOrder = descr[0], kind = descr[1];
  unsigned bytes;
  if (descr.drop_front(2).getAsInteger(10, bytes) || !(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return fail("unsupported dtype '" + descr + "'");
  if (byteOrder == '>' && bytes > 1)
    return fail("big-endian dtype '" + descr + "' is not supported; save it little-endian");
  bool isFloat = isFloatType(elementType);
  bool wantBool = elementType.isInteger(1);
  if (isFloat ? (kind != 'f' || bytes == 1) : !(kind == 'i' || kind == 'u' || (kind == 'b' && bytes == 1)))
    return fail("holds dtype '" + descr + "', which does not convert exactly to " +
                llvm::Twine(isFloat ? "the float type " : "the integer type ") + [&] {
                  std::string t;
                  llvm::raw_string_ostream os(t);
                  os << elementType;
                  return t;
                }());
  size_t payload = headerStart + headerLength;
  if (data.size() - payload < size_t(count) * bytes)
    return fail("truncated data: " + llvm::Twine(count) + " elements of " + llvm::Twine(bytes) +
                " bytes need " + llvm::Twine(count * bytes) + " bytes, the file has " +
                llvm::Twine(data.size() - payload));
  HostArray array = HostArray::contiguous(elementType, shape);
  if (fortran) { // column-major storage: the same bytes with reversed strides
    int64_t stride = 1;
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      array.strides[axis] = stride;
      stride *= std::max<int64_t>(shape[axis], 1);
    }
  }
  unsigned width = isFloat || elementType.isIndex() ? 64 : elementType.getIntOrFloatBitWidth();
  bool isUnsigned = elementType.isUnsignedInteger();
  const char *raw = data.data() + payload;
  for (int64_t k = 0; k < count; ++k) {
    const char *at = raw + k * bytes;
    Elem &e = array.storage[k];
    if (isFloat) {
      double v;
      if (bytes == 2) {
        uint16_t bits;
        std::memcpy(&bits, at, 2);
        v = fromHalfBits(bits);
      } else if (bytes == 4) {
        float f;
        std::memcpy(&f, at, 4);
        v = f;
      } else {
        std::memcpy(&v, at, 8);
      }
      e.f = roundToFloat(v, elementType);
      continue;
    }
    uint64_t bits = 0;
    std::memcpy(&bits, at, bytes);
    int64_t v;
    if (kind == 'i' && bytes < 8) // sign-extend
      v = int64_t(bits << (64 - 8 * bytes)) >> (64 - 8 * bytes);
    else
      v = int64_t(bits);
    if (kind == 'u' && bytes == 8 && v < 0 && !isUnsigned)
      return fail("element " + llvm::Twine(k) + " = " + llvm::Twine(bits) + " does not fit the kernel's type");
    bool fits = wantBool ? (v == 0 || v == 1)
                : width >= 64 ? true
                : isUnsigned ? (v >= 0 && uint64_t(v) < (uint64_t(1) << width))
                             : (v >= -(int64_t(1) << (width - 1)) && v < (int64_t(1) << (width - 1)));
    if (!fits)
      return fail("element " + llvm::Twine(k) + " = " + llvm::Twine(v) + " does not fit the kernel's type");
    e.i = wrapToInteger(v, elementType);
  }
  return array;
}

std::string tessel::interp::describe(const HostArray &array) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << array.elementType << "[";
  llvm::interleave(array.shape, os, ",");
  os << "]";
  bool isFloat = isFloatType(array.elementType);
  double sum = 0;
  uint64_t hash = 0xcbf29ce484222325ULL;
  forEach(array, [&](int64_t addr) {
    const Elem &e = array.storage[addr];
    uint64_t bits;
    if (isFloat) {
      sum += e.f;
      std::memcpy(&bits, &e.f, 8);
    } else {
      sum += double(e.i);
      bits = uint64_t(e.i);
    }
    for (int k = 0; k < 8; ++k) {
      hash ^= (bits >> (8 * k)) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  });
  os << " sum=" << llvm::format("%.9g", sum) << " hash=" << llvm::format_hex_no_prefix(hash, 16);
  return text;
}
