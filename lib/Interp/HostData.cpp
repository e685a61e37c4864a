//===- HostData.cpp - host arrays for `tessel run` and tests ---------------===//

#include "tessel/Interp/HostData.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
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
